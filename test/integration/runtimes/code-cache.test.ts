// The search bundle's V8 code cache (docs/performance.md, "The code cache"): render makes it with the
// pinned node, reproducibly (verify's drift check makes it again), V8 accepts it under the hook's
// flags, and a search answers byte for byte the same with it, without it, and with one V8 refuses.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import { RUNTIME_CODE_CACHE } from '../../../src/contracts/runtime-files.js';
import { codeCacheSummary, withCodeCache } from '../../../src/deploy/render/runtime-files.js';
import { codeCacheMakerArgs, codeCacheSource } from '../../../src/startup/code-cache.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { ROOT, RUNTIME_DIR, runRuntime } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = 'canary-token-code-cache-7Rw1';
const UID = process.getuid?.() ?? 0;
const BUNDLE = RUNTIME_CODE_CACHE.of;

let dir: string;
let installDir: string;
let search: FakeService;
let config: string;
let source: Buffer;

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
  source = fs.readFileSync(path.join(RUNTIME_DIR, BUNDLE));
});
afterAll(async () => {
  await search.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What render does for a deployment pinning `node`: the cache file (if made), and the outcome it reports. */
const outcome = (node = process.execPath, platform: 'posix' | 'windows' = 'posix') =>
  withCodeCache(new Map([[BUNDLE, source]]), { platform, installDir, node }, UID);
const made = (node = process.execPath) => outcome(node).files.get(RUNTIME_CODE_CACHE.file);

/** The maker's cache of a source one byte longer than the bundle. */
const foreignCache = () =>
  execFileSync(process.execPath, codeCacheMakerArgs('other.js'), {
    input: Buffer.concat([source, Buffer.from(' ')]),
    env: {},
  });

/** Whether V8, in a fresh node without flags, takes `cache` for `bundle` wrapped as the hook wraps it. */
function rejected(bundle: Buffer, cache: Uint8Array): boolean {
  const [head, tail] = codeCacheSource('\0').split('\0');
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

let installs = 0;
/** A fresh install's runtime folder holding `cache` (or none at all) beside the built bundles. */
function runtimeWith(cache: Uint8Array | undefined): string {
  const runtime = path.join(dir, `install-${++installs}`, 'runtime');
  fs.cpSync(RUNTIME_DIR, runtime, { recursive: true });
  if (cache !== undefined) fs.writeFileSync(path.join(runtime, RUNTIME_CODE_CACHE.file), cache);
  return runtime;
}

const MODULE_PROBE = path.join(ROOT, 'test/fixtures/module-probe.cjs');

/** One search through the hooks of `runtime`, with `nodeArgs` before the script and `env` added. */
const searchIn = (runtime: string, nodeArgs: string[] = [], env: Record<string, string> = {}) =>
  runRuntime('auto-recall.js', {
    via: path.join(runtime, 'auto-recall.js'),
    nodeArgs,
    stdin: promptSubmitEvent(path.join(dir, 'repo'), { submitted_prompt: 'When do releases ship?' }),
    env: { PATH: '/usr/bin:/bin', QWEN_EXTERNAL_CONTEXT_CONFIG: config, CONTEXT_API_TOKEN: TOKEN, ...env },
  });

/** The same search with the module probe preloaded: its answer and the built-in modules it loaded. */
async function probedSearch(runtime: string): Promise<{ stdout: string; modules: string[] }> {
  const out = path.join(dir, `modules-${++installs}.json`);
  const run = await searchIn(runtime, ['--require', MODULE_PROBE], { MODULE_PROBE_OUT: out });
  return { stdout: run.stdout, modules: JSON.parse(fs.readFileSync(out, 'utf8')).modules };
}

describe('the render-time code cache', () => {
  it('is made by the pinned node, the same bytes every time, and V8 takes it without flags', () => {
    const first = made();
    expect(first?.length).toBeGreaterThan(10_000);
    expect(Buffer.from(made()!).equals(Buffer.from(first!))).toBe(true);
    expect(rejected(source, first!)).toBe(false);
  });

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
    ['a node that makes no cache', () => ['/bin/false', 'posix'], 'made none (exit 1)'],
    ['a Windows deployment', () => ['C:\\node\\node.exe', 'windows'], 'a windows deployment gets none'],
  ])('without a cache (%s) render says why, and the file stays out of the map', (_name, pin, why) => {
    const [node, platform] = pin();
    const { files, cache } = outcome(node, platform);
    expect(files.has(RUNTIME_CODE_CACHE.file)).toBe(false);
    expect(cache).toEqual({ made: false, why: expect.stringContaining(why) });
    expect(codeCacheSummary(cache)).toMatch(
      /^no search code cache: .*compiles the search code at every prompt/,
    );
  });

  it('reports the node it made the cache with', () => {
    const { files, cache } = outcome();
    expect(files.get(RUNTIME_CODE_CACHE.file)?.length).toBeGreaterThan(10_000);
    expect(cache).toEqual({ made: true, node: process.execPath });
    expect(codeCacheSummary(cache)).toBe(`search code cache made with ${process.execPath}`);
  });

  it('negative control: V8 checks only the source length, so a cache must never outlive its bundle', () => {
    // A same-length edit of the bundle is accepted with the old cache: the reason the manifest pins
    // the cache with its bundle and render only ever writes the two together.
    const edited = Buffer.from(source.toString('latin1').replace('untrusted', 'UNTRUSTED'), 'latin1');
    expect(edited.length).toBe(source.length);
    expect(edited.equals(source)).toBe(false);
    expect(rejected(edited, made()!)).toBe(false);
    // A cache of any other length is refused: then the bundle compiles as if there were none.
    expect(rejected(source, foreignCache())).toBe(true);
  });

  it.each<[string, () => Uint8Array | undefined]>([
    ['the render-time cache', () => made()],
    ['an empty cache (render could not run the pinned node)', () => new Uint8Array()],
    ['no cache file at all', () => undefined],
    ['a cache V8 refuses (made for another source)', () => foreignCache()],
    ['bytes that are no cache at all', () => Buffer.alloc(4096, 0x5a)],
  ])('with %s a search answers byte for byte as the plain bundle does', async (_name, cache) => {
    const plain = await searchIn(runtimeWith(undefined));
    expect(plain.stdout).toContain('Releases ship on Tuesdays.');
    const run = await searchIn(runtimeWith(cache()));
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
      code: 0,
      stdout: plain.stdout,
      stderr: '',
    });
  });

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
});
