// A provider whose DNS never answers, for the BUILT OpenClaw plugin, which lives in OpenClaw's process
// (a Gateway runs it for every turn of every session). getaddrinfo holds a libuv threadpool thread
// until the resolver gives up, nothing cancels it, and libuv gives lookups at most half the pool
// (2 of 4 threads): measured with the plugin on OpenClaw's Node 24.22.3, each turn still ended at the
// provider timeout without context, but after six such turns a lookup of `localhost` — what the
// model's host name would need next — waited 81 s. The transports now run one lookup per host
// name at a time (src/http/single-flight-lookup.ts): later turns wait on the stuck one and fail at
// their deadline, and the rest of the process still resolves names.
// And getaddrinfo keeps the event loop of its process alive until the resolver gives up (a worker
// thread's too: the process joins it at exit): OpenClaw's one-turn process stayed 7.7 s past its
// answer (148 s with longer resolver options). In OpenClaw's process the plugin's lookups run
// `getent` in an unref'd child (getentLookup): the process ends with its own work.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BlackHoleResolver, startBlackHoleResolver } from '../../fixtures/black-hole-resolver.js';
import { ROOT } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const CHILD = join(ROOT, 'test', 'fixtures', 'openclaw-stuck-lookup.ts');
// Far past every bound below: no stuck lookup ends by itself during a row.
const RESOLVER_TIMEOUT_S = 60;

let dir: string;
let root: string;
let config: string;
let resolver: BlackHoleResolver;

beforeAll(async () => {
  if (process.getuid?.() !== 0 || spawnSync('unshare', ['-m', 'true']).status !== 0)
    throw new Error('this suite needs root and a mount namespace (unshare -m)');
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'qm-openclaw-stuck-lookup-')));
  root = join(dir, 'repo');
  mkdirSync(root);
  resolver = await startBlackHoleResolver(dir, RESOLVER_TIMEOUT_S);
  config = writeJsonFile(
    join(dir, 'external-context.json'),
    genericAutoRecallConfig(root, 'https://kb.black-hole.example', 300),
  );
});

afterAll(() => {
  resolver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The child's argv, directory and environment. */
function child(mode: 'plugin' | 'plain') {
  const argv = [process.execPath, '--import', 'tsx', CHILD, mode, config, root];
  return [argv, ROOT, { PATH: process.env['PATH'] ?? '', CONTEXT_API_TOKEN: 'token' }] as const;
}

/** The child's one line, read as soon as it is printed; the child (stuck threads and all) is then killed. */
function afterFourTurns(mode: 'plugin' | 'plain'): Promise<{ turns: unknown[]; localhost: string }> {
  return resolver.firstLineIn(...child(mode)) as Promise<{
    turns: unknown[];
    localhost: string;
  }>;
}

describe('a provider whose DNS never answers, four turns of one OpenClaw process', {
  timeout: 60_000,
}, () => {
  it('each turn fails open, and the process still resolves other names', async () => {
    const before = resolver.queries.length;
    expect(await afterFourTurns('plugin')).toEqual({
      turns: [null, null, null, null],
      localhost: 'answered',
    });
    // The black hole was asked: the provider's lookup was in flight the whole time.
    expect(resolver.queries.length).toBeGreaterThan(before);
  });

  it('negative control: with Node’s own lookup per connection the stuck lookups take the resolver’s threads, and localhost waits', async () => {
    expect(await afterFourTurns('plain')).toEqual({ turns: [null, null, null, null], localhost: 'stuck' });
  });

  // Far below the resolver's 60 s, far above the child's own few seconds on a loaded machine.
  const LIMIT_MS = 25_000;

  it('after its turns the process ends by itself, the provider lookup still unanswered', async () => {
    expect(await resolver.endsWithin(...child('plugin'), LIMIT_MS)).toBe('ended');
  });

  it('negative control: with Node’s own lookup the unanswered lookup keeps the process alive', async () => {
    expect(await resolver.endsWithin(...child('plain'), LIMIT_MS)).toBe('running');
  });
});
