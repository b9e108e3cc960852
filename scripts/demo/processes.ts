// Child processes for the demo: run-to-completion helpers, and a registry so an interrupted demo can
// stop whatever it started before it removes the files those processes use.
import { type ChildProcess, spawn } from 'node:child_process';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdin?: string;
}

const running = new Set<ChildProcess>();
let closed = false;

/** Registers a child for the cleanup; once the cleanup has begun, a new child is stopped at once. */
export function track(child: ChildProcess): ChildProcess {
  if (closed) child.kill('SIGKILL');
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  const started = performance.now();
  const child = track(
    spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // A child that exits before reading its stdin must not crash the demo with EPIPE.
  child.stdin?.on('error', () => {});
  child.stdin?.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({ code, signal, stdout, stderr, ms: Math.round(performance.now() - started) }),
    );
  });
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM to every child still running, SIGKILL to any that outlives `graceMs`. */
export async function stopAll(graceMs = 2000): Promise<void> {
  closed = true;
  const children = [...running];
  for (const child of children) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const child of children) child.kill('SIGKILL');
  }, graceMs);
  await Promise.all(children.map(exited));
  clearTimeout(timer);
}
