// Runs the BUILT admin CLI (dist/cli/qwen-managed.js) and other programs as real child processes
// with an explicit environment, collecting everything they print.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../../fixtures/run-runtime.js';

export const CLI = path.join(ROOT, 'dist', 'cli', 'qwen-managed.js');

export interface ProgramRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ProgramOptions {
  cwd: string;
  env: Record<string, string>;
  stdin?: string;
  /** SIGKILL after this long (a hung program must not hang the suite). */
  killAfterMs?: number;
  /** Called once the child exists (to kill it at a chosen moment). */
  onSpawn?: (child: ChildProcess) => void;
}

export function runProgram(
  command: string,
  args: readonly string[],
  options: ProgramOptions,
): Promise<ProgramRun> {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.on('error', () => {});
  child.stdin!.end(options.stdin ?? '');
  options.onSpawn?.(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 60_000);
  return new Promise((resolve) => {
    // A program that cannot be started (missing file, not executable) reports it here, with no `close`.
    child.on('error', (error) => {
      clearTimeout(killer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function cliPath(): string {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  return CLI;
}

/** `node dist/cli/qwen-managed.js <args>`. */
export function runCli(args: readonly string[], options: ProgramOptions): Promise<ProgramRun> {
  return runProgram(process.execPath, [cliPath(), ...args], options);
}
