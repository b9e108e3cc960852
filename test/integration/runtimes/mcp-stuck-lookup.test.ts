// A provider whose DNS never answers, for the BUILT MCP server, which lives as long as the session.
// It runs in a mount namespace whose /etc/resolv.conf names a loopback resolver that reads every
// query and answers none (the pattern of test/integration/broker/stuck-lookup.test.ts). Each search
// still fails at the config's deadline (the socket is dropped, the lookup is not), but the lookup
// keeps a threadpool thread in getaddrinfo, and process.exit() waits for it: the server outlived
// its closed stdin by the resolver's whole timeout, and the real Qwen 0.24.4's /quit took 2.8–2.9 s
// instead of 0.5–0.8 s (it waits 2 s for the server, then sends SIGTERM; measured in a pty with the
// server in such a namespace). Now it ends itself when a lookup is pending.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_FAILED } from '../../../src/runtimes/mcp-server/results.js';
import { type BlackHoleResolver, startBlackHoleResolver } from '../../fixtures/black-hole-resolver.js';
import { runtimePath } from '../../fixtures/run-runtime.js';

const SERVER = runtimePath('mcp-server.js');
const HOST = 'kb.black-hole.example';
// Far past every bound below: no stuck lookup ends by itself during a row.
const RESOLVER_TIMEOUT_S = 60;

let dir: string;
let resolver: BlackHoleResolver;
let config: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (process.getuid?.() !== 0 || spawnSync('unshare', ['-m', 'true']).status !== 0)
    throw new Error('this suite needs root and a mount namespace (unshare -m)');
  dir = mkdtempSync(join(tmpdir(), 'qm-mcp-stuck-lookup-'));
  resolver = await startBlackHoleResolver(dir, RESOLVER_TIMEOUT_S);
  config = join(dir, 'external-context.json');
  writeFileSync(
    config,
    JSON.stringify({
      version: 1,
      timeoutMs: 1000,
      provider: { type: 'generic-http-search-v1', baseUrl: `https://${HOST}`, tokenEnv: 'CONTEXT_API_TOKEN' },
    }),
  );
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(() => {
  resolver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `argv` with /etc/resolv.conf replaced by the black hole, in its own mount namespace (exec'd: same pid). */
function inBlackHole(argv: string[]): ChildProcess {
  const child = spawn('unshare', resolver.unshareArgs(argv), {
    env: {
      PATH: process.env['PATH'] ?? '',
      QWEN_EXTERNAL_CONTEXT_CONFIG: config,
      CONTEXT_API_TOKEN: 'token',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** How the child ended, or `alive` when it has not within `ms` (a hang bound, far below the resolver's). */
function ending(child: ChildProcess, ms: number): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('alive'), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ?? `exit ${code}`);
    });
  });
}

describe('a provider whose DNS never answers: the MCP server', { timeout: 60_000 }, () => {
  it('fails the search at its deadline, and ends as soon as the session closes its stdin', async () => {
    const before = resolver.queries.length;
    const server = inBlackHole([process.execPath, SERVER]);
    let stdout = '';
    server.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const send = (message: unknown) => server.stdin!.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'context_search', arguments: { query: 'q' } },
    });
    await expect.poll(() => stdout.includes('"id":1'), { timeout: 20_000 }).toBe(true);
    const answer = stdout.split('\n').find((line) => line.includes('"id":1'))!;
    expect(JSON.parse(answer).result).toEqual({
      content: [{ type: 'text', text: SEARCH_FAILED }],
      isError: true,
    });
    // The lookup is in flight: the black hole was asked and has not answered.
    expect(resolver.queries.length).toBeGreaterThan(before);
    server.stdin!.end();
    // Before the rule: still alive here, and for the rest of the resolver's 60 s.
    expect(await ending(server, 20_000)).toBe('SIGKILL');
  });

  it('negative control: a process that exits with such a lookup pending stays alive', async () => {
    const before = resolver.queries.length;
    const script =
      `require('node:net').connect(443, ${JSON.stringify(HOST)}).on('error', () => {});` +
      'setTimeout(() => process.exit(0), 1500);';
    const child = inBlackHole([process.execPath, '-e', script]);
    expect(await ending(child, 8_000)).toBe('alive');
    expect(resolver.queries.length).toBeGreaterThan(before);
  });
});
