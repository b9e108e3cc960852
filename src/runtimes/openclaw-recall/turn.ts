// Which OpenClaw prompt builds are the user's own turn, and what the user typed. Pure: the plugin
// entry (plugin.ts) passes OpenClaw's `(event, ctx)` and a record of the runs it has seen.
// The shapes are OpenClaw's typed `before_prompt_build` contract (docs/openclaw.md, "What the plugin
// receives"), read defensively: a plugin hook receives whatever the host sends.
import { OPENCLAW_RECALL_CAPABILITY } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';

/** The tool authority OpenClaw binds to the authorized prompt phase (`ctx.toolAuthority`). */
export interface ToolAuthority {
  allows(toolName: string): boolean;
  assertActive(): void;
}

/** The user's turn as the shared recall core reads it. */
export interface UserTurn {
  prompt: string;
  cwd: string;
  authority: ToolAuthority;
}

/** Runs already searched for, so a retry or continuation inside one run never searches again. */
export class SeenRuns {
  private readonly order: string[] = [];
  private readonly seen = new Set<string>();
  constructor(private readonly capacity = 256) {}
  /** True the first time `runId` is offered; it is then remembered (the oldest forgotten at capacity). */
  first(runId: string): boolean {
    if (this.seen.has(runId)) return false;
    this.seen.add(runId);
    this.order.push(runId);
    if (this.order.length > this.capacity) this.seen.delete(this.order.shift()!);
    return true;
  }
}

function toolAuthorityOf(ctx: Record<string, unknown>): ToolAuthority | undefined {
  const authority = ctx['toolAuthority'];
  if (!isPlainObject(authority) && (typeof authority !== 'object' || authority === null)) return undefined;
  const { allows, assertActive } = authority as Record<string, unknown>;
  if (typeof allows !== 'function' || typeof assertActive !== 'function') return undefined;
  return authority as unknown as ToolAuthority;
}

/**
 * The user's own text of this prompt build, or undefined when this build must not search:
 * - not a user-triggered run (`ctx.trigger`: heartbeat, cron, memory, …);
 * - input OpenClaw classifies as not the user's (`ctx.inputProvenance.kind` other than
 *   `external_user`: inter-session deliveries keep the `user` trigger);
 * - a later build of a run already seen (measured on 2026.9.6: a retry or compaction continuation
 *   rebuilds the prompt with OpenClaw's own "Continue the current task…" text, same run id and trigger);
 * - no tool authority, or one that does not allow the memory-search capability;
 * - an explicitly empty `currentUserMessage` (no textual request: never fall back to `prompt`),
 *   or no text at all; no string workspace.
 * `currentUserMessage` is preferred when the host supplies it; the embedded runner supplies only
 * `prompt`, which is the current input there (history travels in `messages`, measured).
 */
export function userTurn(event: unknown, ctx: unknown, runs: SeenRuns): UserTurn | undefined {
  if (!isPlainObject(event) || !isPlainObject(ctx)) return undefined;
  if (ctx['trigger'] !== 'user') return undefined;
  const provenance = ctx['inputProvenance'];
  if (provenance !== undefined && !(isPlainObject(provenance) && provenance['kind'] === 'external_user')) {
    return undefined;
  }
  const authority = toolAuthorityOf(ctx);
  if (authority === undefined) return undefined;
  const runId = ctx['runId'];
  if (typeof runId !== 'string' || !runs.first(runId)) return undefined;
  let prompt: unknown = event['currentUserMessage'];
  if (prompt === undefined) prompt = event['prompt'];
  if (typeof prompt !== 'string' || prompt.trim() === '') return undefined;
  const cwd = ctx['workspaceDir'];
  if (typeof cwd !== 'string') return undefined;
  // Asked last: `allows` also checks that the authority is still active.
  if (!authority.allows(OPENCLAW_RECALL_CAPABILITY)) return undefined;
  return { prompt, cwd, authority };
}
