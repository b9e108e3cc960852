// Starts `scripts/demo/main.ts` the way `npm run demo` does after its build (tsx on this Node), with
// nothing in its environment but PATH, and lets a test wait for lines or interrupt it.
import type { ChildProcess } from 'node:child_process';
import { spawnTsChild } from '../../fixtures/run-child.js';

export interface DemoRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The first match of `pattern` in stdout, waiting up to `timeoutMs` for it. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL to the demo's whole process group (a test that failed midway must not leave a server). */
  kill(): void;
}

export function startDemo(): DemoRun {
  const child = spawnTsChild('scripts/demo/main.ts', []);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (match === null) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(match);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} in the demo's output within ${timeoutMs} ms:\n${stdout}${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    kill() {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {}
    },
  };
}

/** The demo's output cut at its numbered headings: `sections.get(3)` is the hook section's text. */
export function sections(stdout: string): Map<number, string> {
  const result = new Map<number, string>();
  const parts = stdout.split(/^(?=\d+\. )/m);
  for (const part of parts) {
    const number = /^(\d+)\. /.exec(part)?.[1];
    if (number !== undefined) result.set(Number(number), part);
  }
  return result;
}
