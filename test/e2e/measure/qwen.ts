// Measurements on the real Qwen Code 0.24.4 CLI, driven through the pty harness against the fake
// model. Results feed docs/qwen-0.24.4-measurements.md.
//
//   node scripts/e2e/setup.mjs
//   npx tsx test/e2e/measure/qwen.ts [section…]      sections: a b c d e f x (default: all)
//   MEASURE_CASES=<label,…> limits sections b, c and d to some cases (merged into the saved JSON).
//
// Each section prints what it saw and writes JSON to .cache/e2e/measurements/<section>.json.
// Only loopback traffic (the fake model on 127.0.0.1); every process is killed at the end.

import type { Dirent } from 'node:fs';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { posixQuote } from '../../../src/policy/quote.js';
import {
  contentParts,
  hookContextParts,
  promptParts,
  toolNames,
  toolResults,
} from '../../fixtures/fake-model/inspect.js';
import type { RecordedRequest } from '../../fixtures/fake-model/server.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import type { RecorderHook } from '../harness/hooks.js';
import { hookEntry, mcpProbeServerScript, recorderHook } from '../harness/hooks.js';
import { e2eCacheDir, ensureE2eToolchain, node22 } from '../harness/paths.js';
import { measuredBaseline, removeTree } from '../harness/qwen-home.js';
import { type RunLocation, removeRunLocation, stageRunLocation } from '../harness/run-location.js';
import type { QwenScenarioOptions } from '../harness/scenario.js';
import { INPUT_READY as INPUT_READY_TEXT, QwenScenario } from '../harness/scenario.js';
import { ensureTestUser, type TestUser } from '../harness/users.js';

const outDir = join(e2eCacheDir, 'measurements');
/** MEASURE_CASES: the case labels sections b, c and d run (all when unset). */
const WANTED_CASES = process.env['MEASURE_CASES']?.split(',');

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function log(...args: unknown[]): void {
  console.log(...args);
}

function save(section: string, data: Record<string, unknown>): void {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, `${section}.json`);
  // With MEASURE_CASES (a subset), merge into what an earlier full run saved.
  let merged = data;
  if (process.env['MEASURE_CASES'] && existsSync(file)) {
    merged = { ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), ...data };
  }
  writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  log(`→ ${join(outDir, `${section}.json`)}`);
}

function scratch(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `qwen-measure-${name}-`));
  chmodSync(dir, 0o755);
  return dir;
}

function summarizeRequest(r: RecordedRequest): Record<string, unknown> {
  return {
    seq: r.seq,
    kind: r.kind,
    path: r.path,
    stream: r.stream,
    tools: r.chat ? toolNames(r.chat) : undefined,
    roles: r.chat?.messages.map((m) => m.role),
    promptParts: r.chat ? promptParts(r.chat) : undefined,
    hookContextParts: r.chat ? hookContextParts(r.chat) : undefined,
    lastMessageParts: r.chat ? contentParts(r.chat.messages.at(-1)?.content) : undefined,
    toolResults: r.chat ? toolResults(r.chat) : undefined,
  };
}

function withHooks(
  hooks: Record<string, unknown[]>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...measuredBaseline(), ...extra, hooks };
}

async function run<T>(
  options: QwenScenarioOptions,
  body: (s: QwenScenario) => Promise<T>,
): Promise<T | { error: string }> {
  const s = await QwenScenario.start({ systemSettings: measuredBaseline(), ...options });
  try {
    return await body(s);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`!! ${message}`);
    return { error: message };
  } finally {
    // A case may leave Qwen unable to quit (a dialog open, a hang): dispose() then kills it.
    await s.quit(5000).catch(() => undefined);
    const leftovers = s.term.leftoverProcesses();
    await s.dispose();
    if (leftovers.length > 0) log(`(killed ${leftovers.length} leftover processes)`);
  }
}

// ---------------------------------------------------------------------------------------------
// a. UserPromptSubmit hook in the SYSTEM settings file.

async function sectionA(): Promise<void> {
  const dir = scratch('a');
  const context = `CTX-1 <b>bold</b> & "q" 's\nline2 </qwen:user-prompt-submit-context> end &lt;`;
  const hook = recorderHook(dir, 'ups', {
    stdout: { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: context } },
  });
  // PATH lookup of bash: a `bash` wrapper first on PATH that logs and execs the real one.
  const fakeBin = join(dir, 'bin');
  mkdirSync(fakeBin, { mode: 0o755 });
  const bashLog = join(dir, 'bash-wrapper.log');
  writeFileSync(
    join(fakeBin, 'bash'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> ${posixQuote(bashLog)}\nexec /bin/bash "$@"\n`,
    { mode: 0o755 },
  );
  const systemSettings = withHooks({
    UserPromptSubmit: [
      hookEntry(hook.command, {
        matcher: '*',
        name: 'measure-recorder',
        timeout: 8000,
        statusMessage: 'Recording prompt',
      }),
    ],
  });
  log('hook command:', hook.command);
  const result = await run(
    {
      systemSettings,
      workspaceFiles: { 'notes.txt': 'NOTES-CONTENT-42\n' },
      env: { PATH: `${fakeBin}:/usr/local/bin:/usr/bin:/bin` },
    },
    async (s) => {
      await s.waitForReady();
      s.model.enqueue(
        toolCall('read_file', { file_path: join(s.workspace, 'notes.txt') }),
        text('ANSWER-A done'),
      );
      await s.submit('first prompt <x> & "y"');
      await s.term.waitFor('ANSWER-A', 30_000);
      await sleep(500);
      const screen = s.term.screen();
      // A second plain prompt (no tool call).
      s.model.enqueue(text('ANSWER-A2 done'));
      await s.submit('second prompt');
      await s.term.waitFor('ANSWER-A2', 30_000);
      return { screen, requests: s.model.chatRequests().map(summarizeRequest) };
    },
  );
  const records = hook.records().map(({ env, ...rest }) => ({ ...rest, env }));
  let bashWrapper = '';
  try {
    bashWrapper = readFileSync(bashLog, 'utf8');
  } catch {
    bashWrapper = '(wrapper never ran)';
  }
  log('hook invocations:', records.length);
  for (const r of records) log(' stdin:', r.stdinRaw);
  log(
    ' env keys:',
    Object.keys(records[0]?.env ?? {})
      .sort()
      .join(' '),
  );
  log(' SHLVL:', records[0]?.env['SHLVL'], 'PWD:', records[0]?.env['PWD'], 'parent:', records[0]?.parentComm);
  log('bash wrapper log:', JSON.stringify(bashWrapper));
  save('a', { hookCommand: hook.command, systemSettings, context, records, bashWrapper, result });
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------
// e. Timing: launch → input box; per-prompt latency with a hook sleeping 0 ms / 2 s / no hook.

async function promptLatency(s: QwenScenario, label: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const marker = `LAT-${label}-${i}`;
    s.model.enqueue(text(`${marker}-ANSWER`));
    await s.term.type(`latency probe ${marker}`);
    await sleep(150);
    const before = s.model.requests.length;
    const t0 = Date.now();
    await s.term.press('Enter', 1, 0);
    const req = await s.model.waitForRequest(
      (r) => r.seq > before && r.kind === 'main' && JSON.stringify(r.chat?.messages.at(-1)).includes(marker),
      30_000,
    );
    out.push(req.receivedAt - t0);
    await s.term.waitFor(`${marker}-ANSWER`, 30_000);
    await sleep(300);
  }
  return out;
}

async function sectionE(): Promise<void> {
  const dir = scratch('e');
  const ready: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await run({}, async (s) => s.waitForReady());
    if (typeof r === 'number') ready.push(r);
  }
  log('launch → input box (ms):', ready);
  const latency: Record<string, number[]> = {};
  for (const [label, sleepMs] of [
    ['none', -1],
    ['0ms', 0],
    ['2000ms', 2000],
  ] as const) {
    const hook = recorderHook(dir, `lat-${label}`, { sleepMs: Math.max(0, sleepMs) });
    const systemSettings =
      sleepMs < 0
        ? measuredBaseline()
        : withHooks({
            UserPromptSubmit: [hookEntry(hook.command, { matcher: '*', name: 'lat', timeout: 8000 })],
          });
    const r = await run({ systemSettings }, async (s) => {
      await s.waitForReady();
      await sleep(500);
      return promptLatency(s, label, 4);
    });
    if (Array.isArray(r)) latency[label] = r;
    log(`Enter → model request, hook ${label}:`, r);
  }
  save('e', { ready, latency } as Record<string, unknown>);
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------
// b. PreToolUse `ask`: the confirmation UI, how many confirmations, approval modes.

/** The question line of a confirmation dialog (built-in tools / MCP tools). */
const CONFIRM = /Do you want to proceed\?|Allow execution of MCP tool/;

interface ConfirmationRun {
  confirmations: number;
  screens: string[];
  hookRuns: Record<string, number>;
  finalScreen: string;
  nextRequest?: Record<string, unknown>;
}

/** The dialog part of the screen: from the tool line above "Do you want to proceed?" to the options. */
function dialogText(screen: string): string {
  const lines = screen.split('\n');
  const at = lines.findIndex((l) => CONFIRM.test(l));
  if (at < 0) return screen;
  let start = at;
  while (start > 0 && !/^\s*[?✓✗x]\s/.test(lines[start] ?? '') && at - start < 14) start--;
  return lines.slice(start, at + 6).join('\n');
}

/**
 * Drives one prompt whose model answer is a tool call: answers every confirmation dialog with
 * `key` (Enter = "Yes, allow once", Escape = "No") until `doneText` shows or `maxDialogs` is hit.
 */
async function driveConfirmations(
  s: QwenScenario,
  doneText: string,
  key: 'Enter' | 'Escape',
  hooks: RecorderHook[],
  maxDialogs = 5,
): Promise<ConfirmationRun> {
  const screens: string[] = [];
  for (let i = 0; i < maxDialogs; i++) {
    const seen = await s.term.waitFor(new RegExp(`${CONFIRM.source}|${doneText}`), 30_000);
    if (seen === doneText) break;
    await sleep(400);
    screens.push(dialogText(s.term.screen()));
    await s.term.press(key);
    await sleep(1500);
    if (key === 'Escape') break;
  }
  await sleep(1000);
  const hookRuns: Record<string, number> = {};
  for (const h of hooks) hookRuns[h.recordFile.replace(/^.*\//, '')] = h.records().length;
  return { confirmations: screens.length, screens, hookRuns, finalScreen: s.term.screen() };
}

/** The approval-mode indicator line on screen. */
async function modeLine(s: QwenScenario): Promise<string> {
  await sleep(400);
  await s.term.flush();
  const lines = s.term.screen().split('\n');
  return (lines.findLast((l) => /\(shift \+ tab/i.test(l)) ?? '(no mode line)').trim();
}

/** The mode line now, then after each of `presses` Shift+Tab presses. */
async function cycleModes(s: QwenScenario, presses: number): Promise<string[]> {
  const out = [await modeLine(s)];
  for (let i = 0; i < presses; i++) {
    await s.term.press('ShiftTab');
    out.push(await modeLine(s));
  }
  return out;
}

async function switchToMode(s: QwenScenario, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 6; i++) {
    const line = await modeLine(s);
    if (pattern.test(line)) return line;
    await s.term.press('ShiftTab');
  }
  throw s.term.failure(`mode ${pattern} not reached`);
}

interface AskCase {
  label: string;
  /** PreToolUse hooks: matcher → decision ('ask' | 'allow' | none). */
  hooks: Array<{ matcher: string; decision?: 'ask' | 'allow' | 'deny'; sleepMs?: number }>;
  permissions?: Record<string, string[]>;
  key: 'Enter' | 'Escape';
  mode?: RegExp;
  extraSettings?: Record<string, unknown>;
}

async function askCase(
  dir: string,
  c: AskCase,
  tool: { name: string; args: (ws: string) => unknown },
  scenario: Partial<QwenScenarioOptions> = {},
): Promise<unknown> {
  const hooks = c.hooks.map((h, i) =>
    recorderHook(
      dir,
      `${c.label}-${i}`,
      h.decision
        ? {
            ...(h.sleepMs ? { sleepMs: h.sleepMs } : {}),
            stdout: {
              hookSpecificOutput: {
                hookEventName: 'PreToolUse',
                permissionDecision: h.decision,
                permissionDecisionReason: `REASON-${i} from hook matcher ${h.matcher}: <b>literal</b> **md** \`code\``,
              },
            },
          }
        : {},
    ),
  );
  const systemSettings = withHooks(
    hooks.length
      ? {
          PreToolUse: hooks.map((h, i) =>
            hookEntry(h.command, { matcher: c.hooks[i]!.matcher, name: `pre-${i}`, timeout: 8000 }),
          ),
        }
      : {},
    { ...(c.permissions ? { permissions: c.permissions } : {}), ...c.extraSettings },
  );
  const done = `ANSWER-${c.label.toUpperCase()}`;
  const result = await run(
    { systemSettings, workspaceFiles: { 'notes.txt': 'NOTES-CONTENT-42\n' }, ...scenario },
    async (s) => {
      await s.waitForReady();
      const mode = c.mode ? await switchToMode(s, c.mode) : await modeLine(s);
      s.model.enqueue(toolCall(tool.name, tool.args(s.workspace)), text(`${done} done`));
      const before = s.model.requests.length;
      await s.submit(`run the tool for ${c.label}`);
      const r = await driveConfirmations(s, done, c.key, hooks);
      const after = s.model.requests.slice(before).filter((q) => q.kind === 'main');
      const sides = s.model.requests
        .slice(before)
        .filter((q) => q.kind !== 'main')
        .map((q) => q.kind);
      const toolRan =
        after.length > 1
          ? toolResults(after[1]!.chat!).map((t) => `${t.name}: ${t.content.slice(0, 200)}`)
          : [];
      return {
        mode,
        ...r,
        mainRequestsAfterPrompt: after.length,
        sideRequests: sides,
        toolResults: toolRan,
        hookStdin: hooks.map((h) => h.records().map((x) => x.stdin)),
      };
    },
  );
  const summary = result as {
    confirmations?: number;
    hookRuns?: unknown;
    mode?: string;
    toolResults?: unknown;
    sideRequests?: unknown;
  };
  log(
    `[${c.label}] mode=${summary.mode} confirmations=${summary.confirmations} hookRuns=${JSON.stringify(summary.hookRuns)} side=${JSON.stringify(summary.sideRequests)} results=${JSON.stringify(summary.toolResults)}`,
  );
  return { case: c, systemSettings, result };
}

const READ_FILE = { name: 'read_file', args: (ws: string) => ({ file_path: join(ws, 'notes.txt') }) };

async function sectionB(): Promise<void> {
  const dir = scratch('b');
  const out: Record<string, unknown> = {};
  // Shift+Tab cycle as seen on screen, from the managed default.
  out['cycle'] = await run({}, async (s) => {
    await s.waitForReady();
    return cycleModes(s, 5);
  });
  log('Shift+Tab cycle:', out['cycle']);
  const cases: AskCase[] = [
    { label: 'one-hook-approve', hooks: [{ matcher: 'read_file', decision: 'ask' }], key: 'Enter' },
    { label: 'one-hook-deny', hooks: [{ matcher: 'read_file', decision: 'ask' }], key: 'Escape' },
    { label: 'perm-ask-only', hooks: [], permissions: { ask: ['read_file'] }, key: 'Enter' },
    {
      label: 'perm-ask-plus-hook',
      hooks: [{ matcher: 'read_file', decision: 'ask' }],
      permissions: { ask: ['read_file'] },
      key: 'Enter',
    },
    {
      label: 'two-hooks',
      hooks: [
        { matcher: '*', decision: 'ask' },
        { matcher: 'read_file', decision: 'ask' },
      ],
      key: 'Enter',
    },
    {
      label: 'two-hooks-reversed',
      hooks: [
        { matcher: 'read_file', decision: 'ask' },
        { matcher: '*', decision: 'ask' },
      ],
      key: 'Enter',
    },
    {
      label: 'two-hooks-first-slow',
      hooks: [
        { matcher: 'read_file', decision: 'ask', sleepMs: 1500 },
        { matcher: '*', decision: 'ask' },
      ],
      key: 'Enter',
    },
    {
      label: 'two-hooks-plus-perm-ask',
      hooks: [
        { matcher: '*', decision: 'ask' },
        { matcher: 'read_file', decision: 'ask' },
      ],
      permissions: { ask: ['read_file'] },
      key: 'Enter',
    },
    {
      label: 'star-ask-specific-silent',
      hooks: [{ matcher: '*', decision: 'ask' }, { matcher: 'read_file' }],
      key: 'Enter',
    },
    {
      label: 'yolo-hook-ask',
      hooks: [{ matcher: 'read_file', decision: 'ask' }],
      key: 'Enter',
      mode: /YOLO/i,
    },
    {
      label: 'yolo-perm-ask-only',
      hooks: [],
      permissions: { ask: ['read_file'] },
      key: 'Enter',
      mode: /YOLO/i,
    },
    {
      label: 'auto-hook-ask',
      hooks: [{ matcher: 'read_file', decision: 'ask' }],
      key: 'Enter',
      mode: /^\s*Auto mode/i,
    },
    {
      label: 'auto-perm-ask-only',
      hooks: [],
      permissions: { ask: ['read_file'] },
      key: 'Enter',
      mode: /^\s*Auto mode/i,
    },
    {
      label: 'hook-allow-perm-ask',
      hooks: [{ matcher: 'read_file', decision: 'allow' }],
      permissions: { ask: ['read_file'] },
      key: 'Enter',
    },
  ];
  for (const c of cases) {
    if (WANTED_CASES && !WANTED_CASES.includes(c.label)) continue;
    out[c.label] = await askCase(dir, c, READ_FILE);
  }
  save('b', out);
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------
// c. MCP stdio server from --mcp-config with alwaysLoadTools + includeTools.

function mcpConfig(
  dir: string,
  alwaysLoadTools: boolean,
): { file: string; callsFile: string; config: unknown } {
  const callsFile = join(dir, `mcp-calls-${alwaysLoadTools ? 'eager' : 'deferred'}.jsonl`);
  const config = {
    mcpServers: {
      probe: {
        command: node22,
        args: [mcpProbeServerScript, callsFile],
        cwd: dir,
        includeTools: ['probe_echo'],
        ...(alwaysLoadTools ? { alwaysLoadTools: true } : {}),
        timeout: 8000,
      },
    },
  };
  const file = join(dir, `mcp-${alwaysLoadTools ? 'eager' : 'deferred'}.json`);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o644 });
  return { file, callsFile, config };
}

const MCP_TOOL = 'mcp__probe__probe_echo';

async function sectionC(): Promise<void> {
  const dir = scratch('c');
  const out: Record<string, unknown> = {};
  const eager = mcpConfig(dir, true);
  const deferred = mcpConfig(dir, false);
  out['eagerConfig'] = eager.config;

  // c1: which tools does the model see, under which names (eager and deferred)?
  for (const [label, cfg] of [
    ['tools-eager', eager],
    ['tools-deferred', deferred],
  ] as const) {
    out[label] = await run({ args: ['--mcp-config', cfg.file] }, async (s) => {
      await s.waitForReady();
      await sleep(2500);
      s.model.enqueue(text(`ANSWER-${label}`));
      await s.submit(`list tools ${label}`);
      await s.term.waitFor(`ANSWER-${label}`, 30_000);
      const req = s.model.mainRequests()[0]!;
      const tools = toolNames(req.chat!);
      const mcpTools = (req.chat!.tools ?? []).filter((t) => (t.function?.name ?? '').includes('probe'));
      const probeLines = contentParts(req.chat!.messages.find((m) => m.role === 'user')?.content)
        .flatMap((p) => p.split('\n'))
        .filter((l) => l.includes('probe'));
      log(`[${label}] tools: ${tools.join(',')}`);
      log(`[${label}] deferred-list lines mentioning probe: ${JSON.stringify(probeLines)}`);
      return { tools, mcpTools, probeLines, screen: s.term.screen() };
    });
  }

  // c2: deferred path: tool_search select → tool_call.
  out['deferred-call'] = await run({ args: ['--mcp-config', deferred.file] }, async (s) => {
    await s.waitForReady();
    await sleep(2500);
    s.model.enqueue(
      toolCall('tool_search', { query: `select:${MCP_TOOL}` }),
      toolCall('tool_call', { name: MCP_TOOL, arguments: { text: 'via-tool-call' } }),
      text('ANSWER-DEFERRED'),
    );
    await s.submit('call the probe through tool_search');
    const r = await driveConfirmations(s, 'ANSWER-DEFERRED', 'Enter', []);
    const results = s.model.mainRequests().flatMap((q) => toolResults(q.chat!));
    const unique = [...new Map(results.map((x) => [x.toolCallId, x])).values()];
    log(`[deferred-call] confirmations=${r.confirmations} results=${JSON.stringify(unique).slice(0, 600)}`);
    return { ...r, toolResults: unique, calls: readFileSafe(deferred.callsFile) };
  });

  // c3: eager tool: confirmations with no rule, with permissions.allow, with the write-profile shape.
  const mcpTool = { name: MCP_TOOL, args: () => ({ text: 'hello-probe' }) };
  const scenario = { args: ['--mcp-config', eager.file] };
  const cases: AskCase[] = [
    { label: 'mcp-no-rule', hooks: [], key: 'Enter' },
    { label: 'mcp-allow', hooks: [], permissions: { allow: [MCP_TOOL] }, key: 'Enter' },
    { label: 'mcp-allow-server-wildcard', hooks: [], permissions: { allow: ['mcp__probe'] }, key: 'Enter' },
    {
      label: 'mcp-write-shape',
      hooks: [{ matcher: MCP_TOOL, decision: 'ask' }],
      permissions: { ask: [MCP_TOOL] },
      key: 'Enter',
    },
    {
      label: 'mcp-write-shape-yolo',
      hooks: [{ matcher: MCP_TOOL, decision: 'ask' }],
      permissions: { ask: [MCP_TOOL] },
      key: 'Enter',
      mode: /YOLO/i,
    },
    {
      label: 'mcp-write-shape-auto',
      hooks: [{ matcher: MCP_TOOL, decision: 'ask' }],
      permissions: { ask: [MCP_TOOL] },
      key: 'Enter',
      mode: /^\s*Auto mode/i,
    },
    { label: 'mcp-auto-no-rule', hooks: [], key: 'Enter', mode: /^\s*Auto mode/i },
    {
      label: 'mcp-write-shape-plus-star-guard',
      hooks: [
        { matcher: '*', decision: 'ask' },
        { matcher: MCP_TOOL, decision: 'ask' },
      ],
      permissions: { ask: [MCP_TOOL] },
      key: 'Enter',
    },
  ];
  for (const c of cases) {
    if (WANTED_CASES && !WANTED_CASES.includes(c.label)) continue;
    const r = await askCase(dir, c, mcpTool, scenario);
    out[c.label] = { ...(r as Record<string, unknown>), mcpCalls: readFileSafe(eager.callsFile) };
  }
  save('c', out);
  removeTree(dir);
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// d. disableAllHooks precedence and QWEN_CODE_SAFE_MODE from a project .env.

async function sectionD(): Promise<void> {
  const dir = scratch('d');
  const out: Record<string, unknown> = {};
  const cases: Array<{
    label: string;
    system?: Record<string, unknown>;
    user?: Record<string, unknown>;
    workspace?: Record<string, unknown>;
    dotenv?: string;
    env?: Record<string, string>;
    unset?: string[];
  }> = [
    { label: 'control' },
    { label: 'workspace-disable', workspace: { $version: 4, disableAllHooks: true } },
    { label: 'user-disable', user: { disableAllHooks: true } },
    {
      label: 'workspace-disable-no-system-key',
      system: { disableAllHooks: undefined },
      workspace: { $version: 4, disableAllHooks: true },
    },
    { label: 'dotenv-safe-mode-forced-0', dotenv: 'QWEN_CODE_SAFE_MODE=1\nQWEN_CODE_SIMPLE=1\n' },
    { label: 'dotenv-safe-mode-unset', dotenv: 'QWEN_CODE_SAFE_MODE=1\n', unset: ['QWEN_CODE_SAFE_MODE'] },
    { label: 'dotenv-safe-mode-empty', dotenv: 'QWEN_CODE_SAFE_MODE=1\n', env: { QWEN_CODE_SAFE_MODE: '' } },
    { label: 'env-safe-mode-1', env: { QWEN_CODE_SAFE_MODE: '1' } },
    { label: 'qwen-dotenv-safe-mode-forced-0', dotenv: undefined },
  ];
  for (const c of cases) {
    if (WANTED_CASES && !WANTED_CASES.includes(c.label)) continue;
    const hook = recorderHook(dir, c.label, {
      stdout: {
        hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: `CTX-${c.label}` },
      },
    });
    const base = withHooks({
      UserPromptSubmit: [hookEntry(hook.command, { matcher: '*', name: 'd', timeout: 8000 })],
    });
    const systemSettings = JSON.parse(JSON.stringify({ ...base, ...c.system })) as Record<string, unknown>;
    const files: Record<string, string> = {};
    if (c.dotenv !== undefined) files['.env'] = c.dotenv;
    if (c.label === 'qwen-dotenv-safe-mode-forced-0') files['.qwen/.env'] = 'QWEN_CODE_SAFE_MODE=1\n';
    const r = await run(
      {
        systemSettings,
        workspaceFiles: files,
        ...(c.user ? { userSettings: c.user } : {}),
        ...(c.workspace ? { workspaceSettings: c.workspace } : {}),
        ...(c.env ? { env: c.env } : {}),
        ...(c.unset ? { unsetEnv: c.unset } : {}),
      },
      async (s) => {
        await s.waitForReady();
        s.model.enqueue(text(`ANSWER-${c.label}`));
        await s.submit(`prompt for ${c.label}`);
        await s.term.waitFor(`ANSWER-${c.label}`, 30_000);
        const req = s.model.mainRequests()[0]!;
        return {
          hookContext: hookContextParts(req.chat!),
          footer: s.term.screen().split('\n').slice(-3).join('\n'),
          banner: s.term
            .screen()
            .split('\n')
            .filter((l) => /safe|hooks? (are )?disabled/i.test(l)),
        };
      },
    );
    const runs = hook.records().length;
    log(`[${c.label}] hook ran ${runs}x; result=${JSON.stringify(r)}`);
    out[c.label] = {
      case: c,
      hookRuns: runs,
      result: r,
      safeModeEnvSeenByHook: hook.records()[0]?.env['QWEN_CODE_SAFE_MODE'],
    };
  }
  save('d', out);
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------
// f. Non-root user, root-owned read-only system settings, per-user writable QWEN_HOME.

function listTree(
  root: string,
): Array<{ path: string; mode: string; uid: number; size: number; dir: boolean }> {
  const out: Array<{ path: string; mode: string; uid: number; size: number; dir: boolean }> = [];
  const walk = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      const st = statSync(p);
      out.push({
        path: relative(root, p),
        mode: (st.mode & 0o7777).toString(8),
        uid: st.uid,
        size: st.size,
        dir: e.isDirectory(),
      });
      if (e.isDirectory()) walk(p);
    }
  };
  walk(root);
  return out;
}

async function sectionF(): Promise<void> {
  const user = ensureTestUser();
  log(`test user: ${JSON.stringify(user)}`);
  // What the user runs (Node, Qwen, the recorder hook) is copied where it can reach it.
  const location = stageRunLocation();
  try {
    await sectionFAs(user, location);
  } finally {
    removeRunLocation(location);
  }
}

async function sectionFAs(user: TestUser, location: RunLocation): Promise<void> {
  const dir = scratch('f');
  const straceLog = join(dir, 'strace.log');
  writeFileSync(straceLog, '', { mode: 0o666 });
  chmodSync(straceLog, 0o666);
  const hook = recorderHook(
    dir,
    'f-ups',
    { stdout: { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'CTX-F' } } },
    location,
  );
  chmodSync(dir, 0o777);
  const systemSettings = withHooks({
    UserPromptSubmit: [hookEntry(hook.command, { matcher: '*', name: 'f', timeout: 8000 })],
  });
  const tmpBefore = new Set(readdirSync('/tmp'));
  const r = await run(
    {
      user,
      location,
      systemSettings,
      systemSettingsMode: 0o444,
      workspaceFiles: { 'notes.txt': 'NOTES\n' },
      wrapArgv: (argv) => [
        '/usr/bin/strace',
        '-f',
        '-qq',
        '-e',
        'trace=openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,symlink,symlinkat,link,linkat,chmod,fchmodat,truncate',
        '-e',
        'signal=none',
        '-o',
        straceLog,
        ...argv,
      ],
    },
    async (s) => {
      const ready = await s.waitForReady(60_000);
      s.model.enqueue(
        toolCall('read_file', { file_path: join(s.workspace, 'notes.txt') }),
        text('ANSWER-F done'),
      );
      await s.submit('prompt as a normal user');
      await s.term.waitFor('ANSWER-F', 30_000);
      await sleep(1000);
      const home = listTree(s.home);
      const workspace = listTree(s.workspace);
      const system = listTree(join(s.systemSettingsPath, '..'));
      const systemStat = statSync(s.systemSettingsPath);
      return {
        ready,
        uid: user.uid,
        home: s.home,
        qwenHome: s.qwenHome,
        homeTree: home,
        workspaceTree: workspace,
        systemTree: system,
        systemSettingsMode: (systemStat.mode & 0o777).toString(8),
        systemSettingsUid: systemStat.uid,
        systemSettingsContent: readFileSync(s.systemSettingsPath, 'utf8'),
        hookUid: hook.records()[0]?.uid,
        screen: s.term.screen(),
      };
    },
  );
  const tmpNew = readdirSync('/tmp')
    .filter((n) => !tmpBefore.has(n))
    .map((n) => {
      const st = statSync(join('/tmp', n));
      return { name: n, uid: st.uid, mode: (st.mode & 0o7777).toString(8) };
    });
  const strace = readFileSync(straceLog, 'utf8').split('\n');
  const writes = strace.filter(
    (l) =>
      !/= -1 /.test(l) &&
      (/(O_WRONLY|O_RDWR|O_CREAT)/.test(l) ||
        /\b(mkdir|mkdirat|rename|renameat2?|unlink|unlinkat|symlink|link|chmod|fchmodat|truncate|creat)\(/.test(
          l,
        )),
  );
  const writtenPaths = [...new Set(writes.map((l) => /"([^"]+)"/.exec(l)?.[1] ?? l))].sort();
  const failedWrites = [
    ...new Set(
      strace
        .filter(
          (l) =>
            /= -1 /.test(l) &&
            (/(O_WRONLY|O_RDWR|O_CREAT)/.test(l) || /\b(mkdir|mkdirat|rename|unlink)\(/.test(l)),
        )
        .map((l) => `${/"([^"]+)"/.exec(l)?.[1] ?? l} ${/= -1 (\w+)/.exec(l)?.[1] ?? ''}`),
    ),
  ].sort();
  const environLines = strace.filter((l) => /\/proc\/\d+\/environ/.test(l));
  const pidOf = (l: string): string | undefined => /\/proc\/(\d+)\/environ/.exec(l)?.[1];
  const environReads = {
    attemptedPids: new Set(environLines.map(pidOf)).size,
    openedPids: new Set(environLines.filter((l) => !/= -1 /.test(l)).map(pidOf)).size,
  };
  const systemReads = strace
    .filter((l) => l.includes('system/settings.json'))
    .map((l) => l.replace(/^\d+\s+/, ''))
    .slice(0, 10);
  log('written paths:', writtenPaths.join('\n  '));
  log('failed writes:', failedWrites.join('\n  '));
  log('/proc/*/environ:', JSON.stringify(environReads));
  log('new in /tmp:', JSON.stringify(tmpNew));
  save('f', { user, result: r, writtenPaths, failedWrites, environReads, systemReads, tmpNew });
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------
// x. Extras: a hook's statusMessage on screen; what the model sees after a denied confirmation.

async function sectionX(): Promise<void> {
  const dir = scratch('x');
  const out: Record<string, unknown> = {};
  const slow = recorderHook(dir, 'slow', { sleepMs: 2500 });
  out['status-message'] = await run(
    {
      systemSettings: withHooks({
        UserPromptSubmit: [
          hookEntry(slow.command, {
            matcher: '*',
            name: 'slow',
            timeout: 8000,
            statusMessage: 'Retrieving external context',
          }),
        ],
      }),
    },
    async (s) => {
      await s.waitForReady();
      s.model.enqueue(text('ANSWER-X1'));
      await s.submit('prompt with a slow hook');
      await sleep(1200);
      const during = s.term.screen().split('\n').slice(-12).join('\n');
      await s.term.waitFor('ANSWER-X1', 30_000);
      log('[status-message] screen while the hook runs:\n' + during);
      return { during };
    },
  );
  const ask = recorderHook(dir, 'deny', {
    stdout: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: 'Confirm REASON-X',
      },
    },
  });
  out['deny-then-next-prompt'] = await run(
    {
      systemSettings: withHooks({
        PreToolUse: [hookEntry(ask.command, { matcher: 'read_file', name: 'deny', timeout: 8000 })],
      }),
      workspaceFiles: { 'notes.txt': 'NOTES\n' },
    },
    async (s) => {
      await s.waitForReady();
      s.model.enqueue(toolCall('read_file', { file_path: join(s.workspace, 'notes.txt') }));
      await s.submit('read the notes');
      await s.term.waitFor(CONFIRM, 30_000);
      await s.term.press('Escape');
      await s.term.waitFor(INPUT_READY_TEXT, 15_000);
      await sleep(800);
      const afterDeny = s.term.screen().split('\n').slice(-10).join('\n');
      s.model.enqueue(text('ANSWER-X2'));
      await s.submit('next prompt after deny');
      await s.term.waitFor('ANSWER-X2', 30_000);
      const main = s.model.mainRequests();
      const last = main.at(-1)!;
      log('[deny] screen after Escape:\n' + afterDeny);
      log(
        '[deny] main requests: ' +
          main.length +
          '; roles of the next request: ' +
          JSON.stringify(last.chat!.messages.map((m) => m.role)),
      );
      log('[deny] tool results in the next request: ' + JSON.stringify(toolResults(last.chat!)));
      return { afterDeny, mainRequests: main.length, next: summarizeRequest(last) };
    },
  );
  save('x', out);
  removeTree(dir);
}

// ---------------------------------------------------------------------------------------------

const sections: Record<string, () => Promise<void>> = {
  a: sectionA,
  b: sectionB,
  c: sectionC,
  d: sectionD,
  e: sectionE,
  f: sectionF,
  x: sectionX,
};

async function main(): Promise<void> {
  ensureE2eToolchain();
  log(`node22: ${node22}`);
  const wanted = process.argv.slice(2);
  const names = wanted.length > 0 ? wanted : Object.keys(sections);
  for (const name of names) {
    const section = sections[name];
    if (!section) throw new Error(`unknown section ${name} (have ${Object.keys(sections).join(' ')})`);
    log(`\n===== section ${name} =====`);
    await section();
  }
}

await main();
