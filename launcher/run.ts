// Steps 5 and 6: enter the repository root and run `<node> <qwen cli.js> <managed argv>` — the pinned
// node, never Qwen's shebang (which resolves `node` on PATH) nor cli-entry.js (which self-updates).
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { errorCode } from '../src/base/errors.js';
import { show } from '../src/policy/quote.js';
import { failure, PROGRAM } from './messages.js';

export interface QwenCommand {
  node: string;
  /** `[qwenCli, ...managed argv]`: everything after the executable. */
  argv: readonly string[];
  env: Record<string, string>;
  cwd: string;
}

export type Execve = (file: string, args: string[], env: Record<string, string>) => never;

export interface RunDeps {
  platform: NodeJS.Platform;
  /** `process.execve` (Node ≥ 22.15), when the running node has it. */
  execve: Execve | undefined;
  chdir(dir: string): void;
  spawn(file: string, args: string[], options: SpawnOptions): ChildProcess;
  onSignal(signal: NodeJS.Signals, handler: () => void): void;
  offSignal(signal: NodeJS.Signals, handler: () => void): void;
  /** Sends `signal` to the launcher itself. */
  raise(signal: NodeJS.Signals): void;
  exit(code: number): void;
  /** Schedules `fn` after `ms` (keeps the launcher alive meanwhile). */
  later(ms: number, fn: () => void): void;
  signalNumber(signal: NodeJS.Signals): number;
  stderr(text: string): void;
}

/** Signals a user or a supervisor sends to end a session; the spawn fallback passes them on. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export type ChildOutcome = { kind: 'exit'; code: number } | { kind: 'signal'; signal: NodeJS.Signals };

/** How the launcher must end after the child ended: with its code, or by its signal. */
export function childOutcome(code: number | null, signal: NodeJS.Signals | null): ChildOutcome {
  if (signal !== null) return { kind: 'signal', signal };
  return { kind: 'exit', code: code ?? 1 };
}

function enter(cwd: string, deps: RunDeps): void {
  try {
    deps.chdir(cwd);
  } catch (error) {
    throw failure(`cannot enter the repository root ${show(cwd)} (${errorCode(error)})`);
  }
}

/**
 * Replaces the launcher with Qwen when `execve` exists (POSIX): same pid, so the terminal's job
 * control and every signal reach Qwen directly. Otherwise spawns it with inherited stdio, forwards
 * SIGINT/SIGTERM/SIGHUP, and ends with the child's exit code or by the child's signal.
 */
export function runQwen(command: QwenCommand, deps: RunDeps): void {
  enter(command.cwd, deps);
  if (deps.execve !== undefined && deps.platform !== 'win32') {
    deps.execve(command.node, [command.node, ...command.argv], command.env);
    return;
  }
  const child = deps.spawn(command.node, [...command.argv], {
    cwd: command.cwd,
    env: command.env,
    stdio: 'inherit',
    windowsHide: false,
  });
  const handlers = FORWARDED_SIGNALS.map((signal) => {
    const handler = (): void => {
      // Our own signal handler keeps the launcher alive; Qwen decides what the signal means.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    deps.onSignal(signal, handler);
    return [signal, handler] as const;
  });
  const detach = (): void => {
    for (const [signal, handler] of handlers) deps.offSignal(signal, handler);
  };
  child.once('error', (error) => {
    detach();
    deps.stderr(`${PROGRAM}: cannot start ${show(command.node)} (${errorCode(error)})\n`);
    deps.exit(1);
  });
  child.once('exit', (code, signal) => {
    detach();
    const outcome = childOutcome(code, signal);
    if (outcome.kind === 'exit') {
      deps.exit(outcome.code);
      return;
    }
    // End by the same signal, so the caller's shell sees what the user saw; if the signal is
    // ignored here (SIGPIPE), fall back to the shell convention 128 + signal number.
    deps.raise(outcome.signal);
    deps.later(500, () => deps.exit(128 + deps.signalNumber(outcome.signal)));
  });
}
