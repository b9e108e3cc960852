// What a failing e2e test prints: the captured screen (scrollback included), every request the fake
// model and the fake providers recorded, and the hook runs from the bash log. `withReport` wraps a
// test body so the thrown error's message carries all of it.
import {
  contentParts,
  isSystemReminder,
  systemPrompt,
  toolNames,
  toolResults,
} from '../../fixtures/fake-model/inspect.js';
import type { RecordedRequest } from '../../fixtures/fake-model/server.js';
import type { ManagedSession } from './session.js';
import type { ManagedWorld } from './world.js';

const LIMIT = 600;

function clip(value: string, limit = LIMIT): string {
  return value.length > limit ? `${value.slice(0, limit)}… (${value.length} chars)` : value;
}

function describeModelRequest(r: RecordedRequest): string {
  const lines = [`#${r.seq} ${r.method} ${r.path} kind=${r.kind} stream=${r.stream} at=${r.receivedAt}`];
  const chat = r.chat;
  if (chat) {
    lines.push(`  system prompt: ${systemPrompt(chat).length} chars; tools: ${toolNames(chat).length}`);
    const mcpTools = toolNames(chat).filter((n) => n.startsWith('mcp__'));
    if (mcpTools.length > 0) lines.push(`  mcp tools: ${mcpTools.join(', ')}`);
    chat.messages.forEach((m, i) => {
      if (m.role === 'system') return;
      const parts = contentParts(m.content).map((p) =>
        isSystemReminder(p) ? '<system-reminder …>' : clip(p),
      );
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${clip(c.function.arguments, 300)})`);
      lines.push(
        `  [${i}] ${m.role}${m.tool_call_id ? ` (${m.tool_call_id})` : ''}: ${JSON.stringify(parts)}${calls.length ? ` calls ${calls.join(', ')}` : ''}`,
      );
    });
    const results = toolResults(chat);
    if (results.length > 0) lines.push(`  tool results: ${results.length}`);
  } else if (r.rawBody !== '') {
    lines.push(`  body: ${clip(r.rawBody)}`);
  }
  if (r.reply) lines.push(`  reply: ${clip(JSON.stringify(r.reply), 300)}`);
  return lines.join('\n');
}

/** A full diagnostic dump of the world (and the session, when there is one). */
export function report(world: ManagedWorld, session?: ManagedSession): string {
  const out: string[] = [];
  if (session) {
    out.push(
      `===== screen + scrollback (launch-qwen --profile ${session.kind}, exited: ${JSON.stringify(session.term.exited)}) =====`,
    );
    out.push(session.term.fullText());
  }
  out.push(`===== model requests (${world.model.requests.length}) =====`);
  for (const r of world.model.requests) out.push(describeModelRequest(r));
  for (const [name, service] of Object.entries(world.services)) {
    out.push(`===== provider ${name} requests (${service.requests.length}) =====`);
    for (const r of service.requests) out.push(`${r.method} ${r.path} ${clip(r.rawBody.toString('utf8'))}`);
  }
  const bash = world.bashLog();
  out.push(`===== bash invocations by Qwen (${bash.length}) =====`);
  out.push(...bash.map((line) => clip(line, 300)));
  out.push(`===== bash processes that sourced ~/.bashrc: ${JSON.stringify(world.bashrcSourced())}`);
  return out.join('\n');
}

/**
 * Runs a test body; when it throws, rethrows an error whose message ends with `report(...)` (the
 * assertion's actual/expected are kept for the diff).
 */
export async function withReport(
  context: () => { world: ManagedWorld | undefined; session?: ManagedSession | undefined },
  body: () => Promise<void>,
): Promise<void> {
  try {
    await body();
  } catch (error) {
    const { world, session } = context();
    if (!world) throw error;
    const original = error instanceof Error ? error : new Error(String(error));
    const wrapped = new Error(`${original.message}\n${report(world, session)}`, { cause: original });
    wrapped.stack = `${wrapped.message}\n${original.stack?.split('\n').slice(1).join('\n') ?? ''}`;
    for (const key of ['actual', 'expected', 'showDiff'] as const) {
      if (key in original) (wrapped as unknown as Record<string, unknown>)[key] = (original as never)[key];
    }
    throw wrapped;
  }
}
