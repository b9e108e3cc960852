// `qwen-managed serve-context` as a child process over examples/knowledge. Its `--log-queries` access
// log on stderr is how the demo sees what the hook sent: the server records the query it received.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { CLI, DemoError } from './cli.js';
import { exited, track } from './processes.js';

export const TOKEN_ENV = 'CONTEXT_API_TOKEN';

export interface AccessLogLine {
  line: string;
  status: number;
  /** The query as the server received it; absent when the request carried none (or was refused). */
  query?: string;
}

export interface RunningServer {
  url: string;
  args: string[];
  /** Search requests logged so far, oldest first. */
  requests: AccessLogLine[];
  /** Resolves once `count` requests are logged; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs: number): Promise<void>;
  stop(): Promise<number | null>;
}

const LISTENING = /^serve-context: listening on (http:\/\/\S+)$/m;
const ACCESS = /^\S+ POST \/v1\/context\/search (\d{3}) /;

function parseAccessLine(line: string): AccessLogLine | undefined {
  const match = ACCESS.exec(line);
  if (match === null) return undefined;
  const at = line.indexOf(' query=');
  // The server JSON-quotes the query, so it is the rest of the line.
  const query = at === -1 ? undefined : (JSON.parse(line.slice(at + ' query='.length)) as string);
  return { line, status: Number(match[1]), ...(query === undefined ? {} : { query }) };
}

export async function startServer(dir: string, token: string): Promise<RunningServer> {
  const args = ['serve-context', '--dir', dir, '--port', '0', '--token-env', TOKEN_ENV, '--log-queries'];
  // The token reaches the server through its environment only, never through argv or output.
  const child: ChildProcess = track(
    spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env['PATH'] ?? '', [TOKEN_ENV]: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const requests: AccessLogLine[] = [];
  const waiters = new Set<() => void>();
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const entry = parseAccessLine(line);
      if (entry !== undefined) requests.push(entry);
    }
    for (const wake of waiters) wake();
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DemoError('serve-context did not start within 10 s')), 10_000);
    const check = () => {
      const match = LISTENING.exec(stdout);
      if (match?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(match[1]);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new DemoError(`serve-context exited with ${code} before listening\n${stderr.trim()}`));
    });
  });

  return {
    url,
    args,
    requests,
    waitForRequests(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const wake = () => {
          if (requests.length < count) return;
          waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new DemoError(`serve-context logged ${requests.length} request(s), expected ${count}`));
        }, timeoutMs);
        waiters.add(wake);
        wake();
      });
    },
    async stop() {
      // serve-context stops cleanly on SIGTERM and exits 0.
      child.kill('SIGTERM');
      await exited(child);
      return child.exitCode;
    },
  };
}
