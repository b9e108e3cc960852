// Timed child processes for the benchmark: wall time from spawn to exit, the way Qwen experiences it.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface TimedRun {
  ms: number;
  stdout: string;
  code: number | null;
}

export function timedRun(
  command: string,
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: options.env ?? {},
      cwd: options.cwd,
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - started, stdout, code }));
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

interface Pty {
  onExit(listener: (e: { exitCode: number }) => void): void;
  onData(listener: (d: string) => void): void;
}

/** Wall time of a command under a real pseudo-terminal (the launcher refuses anything else). */
export function timedPtyRun(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<TimedRun> {
  const pty = createRequire(import.meta.url)('@lydell/node-pty') as {
    spawn(file: string, args: readonly string[], options: Record<string, unknown>): Pty;
  };
  return new Promise((resolve) => {
    const started = performance.now();
    const term = pty.spawn(command, args, { env: options.env, cwd: options.cwd, cols: 80, rows: 24 });
    let stdout = '';
    term.onData((d) => (stdout += d));
    term.onExit(({ exitCode }) => resolve({ ms: performance.now() - started, stdout, code: exitCode }));
  });
}
