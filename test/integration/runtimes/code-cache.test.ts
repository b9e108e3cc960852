// The bundles' V8 code caches (docs/performance.md, "The code cache"): render makes them with the
// pinned node, reproducibly (verify's drift check makes them again), V8 accepts them without flags,
// and a search, a launcher start and an MCP session answer byte for byte the same with their cache,
// without it, and with one V8 refuses.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import {
  RUNTIME_CODE_CACHES,
  RUNTIME_FILES,
  type RuntimeCodeCache,
} from '../../../src/contracts/runtime-files.js';
import { codeCacheSummary, withCodeCache } from '../../../src/deploy/render/runtime-files.js';
import { codeCacheMakerArgs, codeCacheSource } from '../../../src/startup/code-cache.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { connectMcp } from '../../fixtures/mcp-client.js';
import { ROOT, RUNTIME_DIR, runRuntime } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = 'canary-token-code-cache-7Rw1';
const UID = process.getuid?.() ?? 0;
const SEARCH = RUNTIME_CODE_CACHES.search;
const LAUNCHER = RUNTIME_CODE_CACHES.launcher;
const MCP = RUNTIME_CODE_CACHES.mcpServer;
const CACHES = Object.values(RUNTIME_CODE_CACHES);

let dir: string;
let installDir: string;
let search: FakeService;
let config: string;
/** The on-demand (version 1) config of the same provider, for the MCP server. */
let mcpConfig: string;
/** Each cached bundle's built source, by bundle name. */
let sources: Map<string, Buffer>;
const source = (cache: RuntimeCodeCache = SEARCH) => sources.get(cache.of)!;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-code-cache-')));
  installDir = path.join(dir, 'install');
  fs.mkdirSync(path.join(dir, 'repo'));
  search = await startGenericSearch({
    token: TOKEN,
    documents: [{ id: 'd1', content: 'Releases ship on Tuesdays.', title: 'Releases', score: 0.9 }],
  });
  config = writeJsonFile(
    path.join(dir, 'config.json'),
    genericAutoRecallConfig(path.join(dir, 'repo'), search.url),
  );
  mcpConfig = writeJsonFile(path.join(dir, 'mcp-config.json'), {
    version: 1,
    provider: { type: 'generic-http-search-v1', baseUrl: search.url, tokenEnv: 'CONTEXT_API_TOKEN' },
  });
  sources = new Map(CACHES.map((cache) => [cache.of, fs.readFileSync(path.join(RUNTIME_DIR, cache.of))]));
});
afterAll(async () => {
  await search.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What render does for a deployment pinning `node`: the cache files (if made), and the outcome it reports. */
const outcome = (node = process.execPath, platform: 'posix' | 'windows' = 'posix') =>
  withCodeCache(sources, { platform, installDir, node }, UID);
const made = (node = process.execPath, cache: RuntimeCodeCache = SEARCH) =>
  outcome(node).files.get(cache.file);

/** The maker's cache of a source one byte longer than the bundle. */
const foreignCache = (cache: RuntimeCodeCache = SEARCH) =>
  execFileSync(process.execPath, codeCacheMakerArgs('other.js'), {
    input: Buffer.concat([source(cache), Buffer.from(' ')]),
    env: {},
  });

/** Whether V8, in a fresh node without flags, takes `cache` for `bundle` wrapped as the hook wraps it. */
function rejected(bundle: Buffer, cache: Uint8Array): boolean {
  const [head, tail] = codeCacheSource(Buffer.from('\0')).split('\0');
  fs.writeFileSync(path.join(dir, 'probe.src'), bundle);
  fs.writeFileSync(path.join(dir, 'probe.cache'), cache);
  const probe = `const fs = require('node:fs'); const { Script } = require('node:vm');
    const s = new Script(${JSON.stringify(head)} + fs.readFileSync(process.argv[1], 'utf8') + ${JSON.stringify(tail)},
      { filename: 'probe.js', cachedData: fs.readFileSync(process.argv[2]) });
    process.stdout.write(String(s.cachedDataRejected));`;
  const out = execFileSync(
    process.execPath,
    ['-e', probe, path.join(dir, 'probe.src'), path.join(dir, 'probe.cache')],
    {
      encoding: 'utf8',
      env: {},
    },
  );
  return out === 'true';
}

/** The cache files a runtime may hold beside `cache.of`: each must leave its answers unchanged. */
const cacheVariants = (cache: RuntimeCodeCache): [string, () => Uint8Array | undefined][] => [
  ['the render-time cache', () => made(process.execPath, cache)],
  ['an empty cache (render could not run the pinned node)', () => new Uint8Array()],
  ['no cache file at all', () => undefined],
  ['a cache V8 refuses (made for another source)', () => foreignCache(cache)],
  ['bytes that are no cache at all', () => Buffer.alloc(4096, 0x5a)],
];

let installs = 0;
/** A fresh install's runtime folder holding `bytes` as `cache` (or none at all) beside the built bundles. */
function runtimeWith(bytes: Uint8Array | undefined, cache: RuntimeCodeCache = SEARCH): string {
  const runtime = path.join(dir, `install-${++installs}`, 'runtime');
  fs.cpSync(RUNTIME_DIR, runtime, { recursive: true });
  if (bytes !== undefined) fs.writeFileSync(path.join(runtime, cache.file), bytes);
  return runtime;
}

const MODULE_PROBE = path.join(ROOT, 'test/fixtures/module-probe.cjs');
const CODE_CACHE_PROBE = path.join(ROOT, 'test/fixtures/code-cache-probe.cjs');

/** One search through the hooks of `runtime`, with `nodeArgs` before the script and `env` added. */
const searchIn = (runtime: string, nodeArgs: string[] = [], env: Record<string, string> = {}) =>
  runRuntime('auto-recall.js', {
    via: path.join(runtime, 'auto-recall.js'),
    nodeArgs,
    stdin: promptSubmitEvent(path.join(dir, 'repo'), { submitted_prompt: 'When do releases ship?' }),
    env: { PATH: '/usr/bin:/bin', QWEN_EXTERNAL_CONTEXT_CONFIG: config, CONTEXT_API_TOKEN: TOKEN, ...env },
  });

/** One MCP session through `runtime`'s mcp-server.js, as Qwen starts it: its tools and one search. */
async function mcpSessionIn(runtime: string, nodeArgs: string[] = [], env: Record<string, string> = {}) {
  const { client, stderr } = await connectMcp(path.join(runtime, RUNTIME_FILES.mcpServer), {
    env: { PATH: '/usr/bin:/bin', QWEN_EXTERNAL_CONTEXT_CONFIG: mcpConfig, CONTEXT_API_TOKEN: TOKEN, ...env },
    cwd: dir,
    clientName: 'code-cache-test',
    nodeArgs,
  });
  try {
    const tools = await client.listTools();
    const found = await client.callTool({
      name: 'context_search',
      arguments: { query: 'When do releases ship?' },
    });
    return { tools, found, stderr: stderr() };
  } finally {
    await client.close();
  }
}

/** The same search with the module probe preloaded: its answer and the built-in modules it loaded. */
async function probedSearch(runtime: string): Promise<{ stdout: string; modules: string[] }> {
  const out = path.join(dir, `modules-${++installs}.json`);
  const run = await searchIn(runtime, ['--require', MODULE_PROBE], { MODULE_PROBE_OUT: out });
  return { stdout: run.stdout, modules: JSON.parse(fs.readFileSync(out, 'utf8')).modules };
}

describe('the render-time code caches', () => {
  it.each(CACHES.map((cache) => [cache.of, cache] as const))(
    '%s: made by the pinned node, the same bytes every time, and V8 takes it without flags',
    (_name, cache) => {
      const first = made(process.execPath, cache);
      expect(first?.length).toBeGreaterThan(10_000);
      expect(Buffer.from(made(process.execPath, cache)!).equals(Buffer.from(first!))).toBe(true);
      expect(rejected(source(cache), first!)).toBe(false);
      // Each cache belongs to its own bundle only.
      const other = CACHES.find((c) => c !== cache)!;
      expect(rejected(source(other), first!)).toBe(true);
    },
  );

  it('is not made by a node whose directory others may write (render would run what they put there)', () => {
    const open = path.join(dir, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    fs.symlinkSync(process.execPath, path.join(open, 'node'));
    expect(made(path.join(open, 'node'))).toBeUndefined();
    // Negative control: the same node through a link in a directory only its owner writes is run.
    const closed = path.join(dir, 'closed');
    fs.mkdirSync(closed, { mode: 0o755 });
    fs.symlinkSync(process.execPath, path.join(closed, 'node'));
    expect(made(path.join(closed, 'node'))?.length).toBeGreaterThan(10_000);
    expect(made(path.join(dir, 'no-such-node'))).toBeUndefined();
  });

  it.each<[string, () => [string, 'posix' | 'windows'], string]>([
    ['a node that is not there', () => [path.join(dir, 'no-such-node'), 'posix'], 'is not on this machine'],
    [
      'a node in a directory others may write',
      () => {
        const open = fs.mkdtempSync(path.join(dir, 'open-'));
        fs.chmodSync(open, 0o777);
        fs.symlinkSync(process.execPath, path.join(open, 'node'));
        return [path.join(open, 'node'), 'posix'];
      },
      "fails the launcher's StrictModes check here",
    ],
    ['a node that makes no cache', () => ['/bin/false', 'posix'], `made none for ${SEARCH.of} (exit 1)`],
    ['a Windows deployment', () => ['C:\\node\\node.exe', 'windows'], 'a windows deployment gets none'],
  ])('without caches (%s) render says why, and no cache file is in the map', (_name, pin, why) => {
    const [node, platform] = pin();
    const { files, cache } = outcome(node, platform);
    expect(CACHES.filter((c) => files.has(c.file))).toEqual([]);
    expect(cache).toEqual({ made: false, why: expect.stringContaining(why) });
    expect(codeCacheSummary(cache)).toMatch(
      /^no code caches: .*the search hook, the launcher and the MCP server then compile their code at every start/,
    );
  });

  it('makes all or none: a node that makes the first cache but not the second leaves both out', () => {
    // A node that answers the first maker run and fails every later one (a counter beside it).
    const count = path.join(dir, 'maker-runs');
    const flaky = path.join(dir, 'flaky-node');
    fs.writeFileSync(
      flaky,
      `#!/bin/sh\nif [ -e '${count}' ]; then exit 3; fi\n: > '${count}'\nexec '${process.execPath}' "$@"\n`,
      { mode: 0o755 },
    );
    const { files, cache } = outcome(flaky);
    expect(CACHES.filter((c) => files.has(c.file))).toEqual([]);
    expect(cache).toEqual({
      made: false,
      why: expect.stringContaining(`made none for ${LAUNCHER.of} (exit 3)`),
    });
    // Negative control: the first run did make its cache (the counter is there).
    expect(fs.existsSync(count)).toBe(true);
  });

  it('reports the node it made the caches with', () => {
    const { files, cache } = outcome();
    for (const c of CACHES) expect(files.get(c.file)?.length).toBeGreaterThan(10_000);
    expect(cache).toEqual({ made: true, node: process.execPath });
    expect(codeCacheSummary(cache)).toBe(
      `code caches (search, launcher, mcpServer) made with ${process.execPath}`,
    );
  });

  it('negative control: V8 checks only the source length, so a cache must never outlive its bundle', () => {
    // A same-length edit of the bundle is accepted with the old cache: the reason the manifest pins
    // the cache with its bundle and render only ever writes the two together.
    const edited = Buffer.from(source().toString('latin1').replace('untrusted', 'UNTRUSTED'), 'latin1');
    expect(edited.length).toBe(source().length);
    expect(edited.equals(source())).toBe(false);
    expect(rejected(edited, made()!)).toBe(false);
    // A cache of any other length is refused: then the bundle compiles as if there were none.
    expect(rejected(source(), foreignCache())).toBe(true);
  });

  it.each(cacheVariants(SEARCH))(
    'with %s a search answers byte for byte as the plain bundle does',
    async (_name, cache) => {
      const plain = await searchIn(runtimeWith(undefined));
      expect(plain.stdout).toContain('Releases ship on Tuesdays.');
      const run = await searchIn(runtimeWith(cache()));
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        code: 0,
        stdout: plain.stdout,
        stderr: '',
      });
    },
  );

  it.each(cacheVariants(MCP))(
    'with %s an MCP session answers as the plain bundle does',
    async (_name, cache) => {
      const plain = await mcpSessionIn(runtimeWith(undefined, MCP));
      expect(JSON.stringify(plain.found)).toContain('Releases ship on Tuesdays.');
      expect(await mcpSessionIn(runtimeWith(cache(), MCP))).toEqual(plain);
    },
  );

  it('the hook compiles through node:vm with a cache, and answers the same under the permission model', async () => {
    const runtime = runtimeWith(made());
    const cached = await probedSearch(runtime);
    expect(cached.stdout).toContain('Releases ship on Tuesdays.');
    expect(cached.modules).toContain('NativeModule vm');
    // Negative control: with the empty cache render writes when it cannot run the pinned node, the
    // hook requires the bundle as before and loads nothing more.
    const plain = await probedSearch(runtimeWith(new Uint8Array()));
    expect(plain.stdout).toBe(cached.stdout);
    expect(plain.modules).not.toContain('NativeModule vm');
    const permission =
      spawnSync(process.execPath, ['--permission', '-e', '0']).status === 0
        ? '--permission'
        : '--experimental-permission';
    const restricted = await searchIn(runtime, [permission, '--allow-fs-read=*']);
    expect({ code: restricted.code, stdout: restricted.stdout, stderr: restricted.stderr }).toEqual({
      code: 0,
      stdout: cached.stdout,
      stderr: '',
    });
  });

  /** `node <runtime>/<entry> <args>`: the launcher as bin/launch-qwen starts it, or its bundle directly. */
  const launchVia = (runtime: string, entry: string, args: string[], nodeArgs: string[] = []) =>
    runRuntime(entry, { via: path.join(runtime, entry), args, nodeArgs, env: { PATH: '/usr/bin:/bin' } });

  it.each(cacheVariants(LAUNCHER))(
    'with %s the launcher answers byte for byte as its bundle run directly',
    async (_name, cache) => {
      const runtime = runtimeWith(cache(), LAUNCHER);
      for (const args of [['--version'], ['--profile', 'on-demand'], ['--profile']]) {
        const direct = await launchVia(runtime, RUNTIME_FILES.launcher, args);
        const started = await launchVia(runtime, RUNTIME_FILES.launcherStart, args);
        expect({ code: started.code, stdout: started.stdout, stderr: started.stderr }).toEqual({
          code: direct.code,
          stdout: direct.stdout,
          stderr: direct.stderr,
        });
      }
    },
  );

  it.each(CACHES.map((cache) => [cache.of, cache] as const))(
    '%s: the loader compiles the very source its cache was made from — V8 takes the cache at each start',
    async (_name, cache) => {
      /** What node:vm compiled with a cache during one start of the hook, the launcher or the MCP server. */
      const compiled = async (bytes: Uint8Array) => {
        const runtime = runtimeWith(bytes, cache);
        const out = path.join(dir, `compiled-${++installs}.json`);
        const nodeArgs = ['--require', CODE_CACHE_PROBE];
        const env = { CODE_CACHE_PROBE_OUT: out };
        if (cache === SEARCH) {
          expect((await searchIn(runtime, nodeArgs, env)).stdout).toContain('Releases ship on Tuesdays.');
        } else if (cache === MCP) {
          expect(JSON.stringify((await mcpSessionIn(runtime, nodeArgs, env)).found)).toContain(
            'Releases ship on Tuesdays.',
          );
        } else {
          await runRuntime(RUNTIME_FILES.launcherStart, {
            via: path.join(runtime, RUNTIME_FILES.launcherStart),
            args: ['--version'],
            nodeArgs,
            env: { PATH: '/usr/bin:/bin', ...env },
          });
        }
        return { bundle: path.join(runtime, cache.of), compiled: JSON.parse(fs.readFileSync(out, 'utf8')) };
      };
      const taken = await compiled(made(process.execPath, cache)!);
      expect(taken.compiled).toEqual([{ file: taken.bundle, rejected: false }]);
      // Negative control: the probe sees V8 refuse a cache made for a source one byte longer.
      const refused = await compiled(foreignCache(cache));
      expect(refused.compiled).toEqual([{ file: refused.bundle, rejected: true }]);
    },
  );

  it('the launcher compiles through node:vm with its cache, as the bundle it is (its install named from its own path)', async () => {
    const runtime = runtimeWith(made(process.execPath, LAUNCHER), LAUNCHER);
    const probe = async (cache: string) => {
      const out = path.join(dir, `modules-${++installs}.json`);
      const run = await runRuntime(RUNTIME_FILES.launcherStart, {
        via: path.join(cache, RUNTIME_FILES.launcherStart),
        args: ['--profile', 'on-demand'],
        nodeArgs: ['--require', MODULE_PROBE],
        env: { PATH: '/usr/bin:/bin', MODULE_PROBE_OUT: out },
      });
      return { run, modules: JSON.parse(fs.readFileSync(out, 'utf8')).modules as string[] };
    };
    const cached = await probe(runtime);
    expect(cached.modules).toContain('NativeModule vm');
    // The launcher found its install from the bundle's path (runtime/launch-qwen.js), not the entry's.
    expect(cached.run).toMatchObject({
      code: 1,
      stderr: `launch-qwen: cannot read ${JSON.stringify(path.join(path.dirname(runtime), 'manifest.json'))} (ENOENT); re-render the deployment\n`,
    });
    // Negative control: with an empty cache the entry requires the bundle and loads nothing more.
    const plain = await probe(runtimeWith(new Uint8Array(), LAUNCHER));
    expect(plain.modules).not.toContain('NativeModule vm');
    expect(plain.run.code).toBe(1);
  });
});
