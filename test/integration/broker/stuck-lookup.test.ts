// A provider whose DNS never answers must not stall the broker's other upstreams. getaddrinfo holds a
// libuv threadpool thread (4 by default) until the resolver gives up, and nothing cancels it: four
// prompts to a black-holed provider took every thread, and the model's upstream, asked by name
// next, waited behind them until undici gave up. The broker runs one lookup per host name at a time
// (src/broker/upstream-connector.ts); the control is undici with Node's own lookup.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlackHoleResolver, startBlackHoleResolver } from '../../fixtures/black-hole-resolver.js';
import { ROOT } from '../../fixtures/run-runtime.js';

const CHILD = join(ROOT, 'test', 'fixtures', 'broker-stuck-lookup.ts');

let dir: string;
let resolver: BlackHoleResolver;

beforeAll(async () => {
  if (process.getuid?.() !== 0 || spawnSync('unshare', ['-m', 'true']).status !== 0)
    throw new Error('this suite needs root and a mount namespace (unshare -m)');
  dir = mkdtempSync(join(tmpdir(), 'qm-stuck-lookup-'));
  // 60 s per lookup: far past undici's 10 s connect timeout, so no stuck lookup ends during a row.
  resolver = await startBlackHoleResolver(dir, 60);
});

afterAll(() => {
  resolver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The child's one line, read as soon as it is printed; the child (stuck threads and all) is then killed. */
function localhostAfterStuckLookups(mode: 'broker' | 'plain'): Promise<{ status?: number; error?: string }> {
  return resolver.firstLineIn([process.execPath, '--import', 'tsx', CHILD, mode], ROOT, {
    PATH: process.env['PATH'] ?? '',
  }) as Promise<{ status?: number; error?: string }>;
}

describe('a provider whose DNS never answers, asked by four prompts at once', { timeout: 60_000 }, () => {
  it('the broker still reaches an upstream named by host name', async () => {
    const before = resolver.queries.length;
    expect(await localhostAfterStuckLookups('broker')).toEqual({ status: 200 });
    // The black hole was asked: the provider's lookup was in flight the whole time.
    expect(resolver.queries.length).toBeGreaterThan(before);
  });

  it('negative control: undici with Node’s own lookup gives the four stuck lookups every thread, and the named upstream times out', async () => {
    expect(await localhostAfterStuckLookups('plain')).toEqual({ error: 'UND_ERR_CONNECT_TIMEOUT' });
  });
});
