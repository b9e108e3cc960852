// MCP sessions over stdio, spoken by hand (newline-delimited JSON-RPC, with verify's smoke-run
// pieces) so the measuring side adds nothing.
import { spawn } from 'node:child_process';
import { jsonLineReader, MCP_INITIALIZED, mcpInitializeRequest } from '../../src/deploy/verify/smoke.js';

const TOOLS_LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' } as const;

/**
 * The start Qwen pays at every on-demand or write session: spawn → the `initialize` answer, then
 * `notifications/initialized` and `tools/list` → its answer (ms since spawn); stdin closed after it.
 */
export function timedMcpStart(
  node: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ initialize: number; toolsList: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const read = jsonLineReader();
    let initialize = 0;
    let toolsList = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const message of read(chunk) as { id?: number; error?: unknown }[]) {
        if (message.error !== undefined) reject(new Error(JSON.stringify(message.error)));
        if (message.id === 1) {
          initialize = performance.now() - started;
          send(MCP_INITIALIZED);
          send(TOOLS_LIST);
        } else if (message.id === 2) {
          toolsList = performance.now() - started;
          child.stdin.end();
        }
      }
    });
    child.on('error', reject);
    child.on('close', () => {
      if (toolsList === 0) reject(new Error(`${args.join(' ')} ended before answering tools/list`));
      else resolve({ initialize, toolsList });
    });
    send(mcpInitializeRequest('bench'));
  });
}

/** spawn → initialize → tools/list → one context_search → stdin closed → exit (ms). */
export function timedMcpSession(node: string, server: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, [server], { stdio: ['pipe', 'pipe', 'ignore'], env });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const read = jsonLineReader();
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const message of read(chunk) as { id?: number; error?: unknown }[]) {
        if (message.error !== undefined) reject(new Error(JSON.stringify(message.error)));
        if (message.id === 1) {
          send(MCP_INITIALIZED);
          send(TOOLS_LIST);
        } else if (message.id === 2) {
          send({
            jsonrpc: '2.0',
            id: 3,
            method: 'tools/call',
            params: { name: 'context_search', arguments: { query: 'deployment' } },
          });
        } else if (message.id === 3) {
          child.stdin.end();
        }
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
    send(mcpInitializeRequest('bench'));
  });
}
