// Smoke runs of each bundled runtime in the tree, as real child processes with an empty environment:
// the hooks answer `{}` to `{}` with exit 0 and nothing on stderr; the MCP server completes an MCP
// handshake and lists its tools (or, without a version-1 profile, refuses to start with its one
// fixed error line); the launcher prints its version; the rollback tool prints its help.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { PROVIDER_CONFIG_VARIABLE } from '../../contracts/names.js';
import { RUNTIME_FILES } from '../../contracts/runtime-files.js';
import type { SmokeResult } from './verify.js';

// An MCP stdio session spoken by hand: newline-delimited JSON-RPC, no SDK on the client side.

/** The client's `initialize` request (id 1), the first message of an MCP session. */
export function mcpInitializeRequest(clientName: string) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: clientName, version: '1' },
    },
  } as const;
}

/** The client's notification that follows `initialize`. */
export const MCP_INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' } as const;

/**
 * Splits a server's stdout into JSON-RPC messages: feed it every chunk, get the messages of the lines
 * completed by it (a partial line waits for the next chunk; a line that is not JSON is skipped).
 */
export function jsonLineReader(): (chunk: string) => unknown[] {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    return lines.flatMap((line) => {
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        return [];
      }
    });
  };
}

export interface McpSmokeProfile {
  /** Absolute path of a version-1 external-context.json in the tree. */
  configFile: string;
  credentialVariable: string;
  tools: readonly string[];
}

export interface SmokeOptions {
  /** `<tree>/runtime`. */
  runtimeDir: string;
  /** The Node used to run them: the pinned one when present on this machine. */
  node: string;
  mcp?: McpSmokeProfile;
  timeoutMs?: number;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs a file; `interact` is called once at the start (with '') and then with each stdout chunk: it
 * may write to stdin and decide when to close it.
 */
function run(
  node: string,
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
  interact: (chunk: string, write: (text: string) => void, end: () => void) => void,
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(node, [file, ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: path.dirname(file),
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let ended = false;
    const end = () => {
      if (!ended) {
        ended = true;
        child.stdin.end();
      }
    };
    const write = (text: string) => {
      if (!ended) child.stdin.write(text);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdin.on('error', () => {});
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      interact(chunk, write, end);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
    interact('', write, end);
  });
}

function outcome(r: Run): string {
  if (r.timedOut) return 'did not finish in time';
  return `exit ${r.code ?? r.signal}, stdout ${JSON.stringify(r.stdout.slice(0, 120))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`;
}

async function smokeHook(options: SmokeOptions, name: string, timeoutMs: number): Promise<SmokeResult> {
  const r = await run(
    options.node,
    path.join(options.runtimeDir, name),
    [],
    {},
    timeoutMs,
    (_out, write, end) => {
      write('{}');
      end();
    },
  );
  const ok = !r.timedOut && r.code === 0 && r.stdout.trim() === '{}' && r.stderr === '';
  return {
    runtime: name,
    ok,
    message: ok
      ? '`{}` in → `{}` out, exit 0, empty stderr'
      : `\`{}\` in should give \`{}\` out with exit 0: ${outcome(r)}`,
  };
}

async function smokeMcp(options: SmokeOptions, timeoutMs: number): Promise<SmokeResult> {
  const name = RUNTIME_FILES.mcpServer;
  const file = path.join(options.runtimeDir, name);
  if (options.mcp === undefined) {
    const r = await run(options.node, file, [], {}, timeoutMs, (_out, _write, end) => end());
    const ok = !r.timedOut && r.code === 1 && r.stderr.startsWith('[external-context]');
    return {
      runtime: name,
      ok,
      message: ok
        ? 'refuses to start without a config, with its fixed error line'
        : `should exit 1 with an [external-context] line without a config: ${outcome(r)}`,
    };
  }
  const { configFile, credentialVariable, tools } = options.mcp;
  const requests = [
    mcpInitializeRequest('qwen-managed-verify'),
    MCP_INITIALIZED,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ];
  const read = jsonLineReader();
  let listed: string[] | undefined;
  let sent = false;
  const r = await run(
    options.node,
    file,
    [],
    { [PROVIDER_CONFIG_VARIABLE]: configFile, [credentialVariable]: 'qwen-managed-verify-smoke' },
    timeoutMs,
    (chunk, write, end) => {
      if (!sent) {
        sent = true;
        for (const request of requests) write(`${JSON.stringify(request)}\n`);
      }
      for (const message of read(chunk) as { id?: number; result?: { tools?: { name: string }[] } }[]) {
        if (message?.id === 2 && Array.isArray(message.result?.tools)) {
          listed = message.result.tools.map((t) => t.name).sort();
          end();
        }
      }
    },
  );
  const ok = listed !== undefined && JSON.stringify(listed) === JSON.stringify([...tools].sort());
  return {
    runtime: name,
    ok,
    message: ok
      ? `MCP handshake answered; tools: ${listed!.join(', ')}`
      : `MCP handshake should list ${[...tools].join(', ')}: ${listed === undefined ? outcome(r) : `listed ${listed.join(', ')}`}`,
  };
}

async function smokeArgs(
  options: SmokeOptions,
  name: string,
  args: string[],
  expect: RegExp,
  timeoutMs: number,
): Promise<SmokeResult> {
  const r = await run(options.node, path.join(options.runtimeDir, name), args, {}, timeoutMs, (_o, _w, end) =>
    end(),
  );
  const ok = !r.timedOut && r.code === 0 && expect.test(r.stdout);
  return {
    runtime: name,
    ok,
    message: ok
      ? `\`${args.join(' ')}\` exits 0`
      : `\`${args.join(' ')}\` should exit 0 and print ${expect}: ${outcome(r)}`,
  };
}

export async function smokeRuntimes(options: SmokeOptions): Promise<SmokeResult[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return Promise.all([
    smokeHook(options, RUNTIME_FILES.autoRecall, timeoutMs),
    smokeHook(options, RUNTIME_FILES.writeConfirmation, timeoutMs),
    smokeHook(options, RUNTIME_FILES.approvalGuard, timeoutMs),
    smokeMcp(options, timeoutMs),
    smokeArgs(options, RUNTIME_FILES.launcherStart, ['--version'], /\S/, timeoutMs),
    smokeArgs(options, RUNTIME_FILES.rollback, ['--help'], /rollback/, timeoutMs),
  ]);
}
