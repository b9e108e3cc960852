// One MCP session over stdio, spoken by hand (newline-delimited JSON-RPC) so the measuring side adds
// nothing: spawn → initialize → tools/list → one context_search → stdin closed → exit.
import { spawn } from 'node:child_process';

export function timedMcpSession(node: string, server: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, [server], { stdio: ['pipe', 'pipe', 'ignore'], env });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    let buffer = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const message = JSON.parse(buffer.slice(0, newline)) as { id?: number; error?: unknown };
        buffer = buffer.slice(newline + 1);
        if (message.error !== undefined) reject(new Error(JSON.stringify(message.error)));
        if (message.id === 1) {
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
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
        newline = buffer.indexOf('\n');
      }
    });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
  });
}
