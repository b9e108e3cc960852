// Command hooks for e2e tests: the recorder fixture (test/e2e/fixtures/hook-recorder.mjs) wired
// into Qwen settings the way the renderer will wire the real runtimes: `exec '<node>' '<script>' …`.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { posixQuote } from '../../../src/policy/quote.js';
import { node22, repoRoot } from './paths.js';
import type { RunLocation } from './run-location.js';

export const hookRecorderScript = join(repoRoot, 'test', 'e2e', 'fixtures', 'hook-recorder.mjs');
export const mcpProbeServerScript = join(repoRoot, 'test', 'e2e', 'fixtures', 'mcp-probe-server.mjs');

/** `exec '<node>' '<script>' '<arg>'…` */
export function execCommand(script: string, args: string[] = [], node: string = node22): string {
  return ['exec', posixQuote(node), posixQuote(script), ...args.map(posixQuote)].join(' ');
}

export interface HookBehaviour {
  sleepMs?: number;
  stdout?: string | Record<string, unknown>;
  stderr?: string;
  exitCode?: number;
}

export interface RecorderHook {
  /** The hook command (exec + single quotes). */
  command: string;
  recordFile: string;
  behaviourFile: string;
  /** Replace the behaviour (an array gives one per invocation; the last repeats). */
  setBehaviour(behaviour: HookBehaviour | HookBehaviour[]): void;
  /** Every invocation recorded so far. */
  records(): HookRecord[];
}

export interface HookRecord {
  index: number;
  startedAt: number;
  argv: string[];
  execPath: string;
  cwd: string;
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  parentComm: string;
  parentCmdline: string[];
  uid: number | undefined;
  env: Record<string, string>;
  /** fd 0 as the hook found it: `fifo`, `socket`, `character-device`, `file`, `other` or `closed`. */
  stdinType: string;
  stdinRaw: string;
  stdin: Record<string, unknown> | null;
}

/**
 * A recorder hook writing into `dir` under `name` (`<name>.jsonl`, `<name>.behaviour.json`). For a
 * Qwen run as a throwaway user, pass the run location: the user may not reach the clone's copies.
 */
export function recorderHook(
  dir: string,
  name: string,
  behaviour: HookBehaviour | HookBehaviour[] = {},
  location?: Pick<RunLocation, 'node22' | 'hookRecorder'>,
): RecorderHook {
  const recordFile = join(dir, `${name}.jsonl`);
  const behaviourFile = join(dir, `${name}.behaviour.json`);
  const setBehaviour = (b: HookBehaviour | HookBehaviour[]): void => {
    writeFileSync(behaviourFile, `${JSON.stringify(b)}\n`, { mode: 0o644 });
  };
  setBehaviour(behaviour);
  return {
    command: execCommand(
      location?.hookRecorder ?? hookRecorderScript,
      [recordFile, behaviourFile],
      location?.node22 ?? node22,
    ),
    recordFile,
    behaviourFile,
    setBehaviour,
    records: () => readHookRecords(recordFile),
  };
}

export function readHookRecords(recordFile: string): HookRecord[] {
  if (!existsSync(recordFile)) return [];
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as HookRecord);
}

/** A `hooks.<Event>` entry with one command hook. */
export function hookEntry(
  command: string,
  options: { matcher?: string; name?: string; timeout?: number; statusMessage?: string } = {},
): Record<string, unknown> {
  const hook: Record<string, unknown> = { type: 'command', command };
  if (options.name !== undefined) hook['name'] = options.name;
  if (options.timeout !== undefined) hook['timeout'] = options.timeout;
  if (options.statusMessage !== undefined) hook['statusMessage'] = options.statusMessage;
  const entry: Record<string, unknown> = { hooks: [hook] };
  if (options.matcher !== undefined) entry['matcher'] = options.matcher;
  return entry;
}
