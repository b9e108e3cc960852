// What the BUILT hooks load, and that they use public Node APIs only. Stdin is read with fs.read on
// libuv's threadpool, a provider is spoken to over node:net: the cheap hooks load nothing beyond
// a bare `node` start, the search path adds node:net (never http, tls, fetch or zod), and under
// Node's permission model, which refuses Node's internal bindings, every hook answers the same.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preToolUseEvent, promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import { node22 } from '../../e2e/harness/paths.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { type Fault, refusedUrl, startFaultServer } from '../../fixtures/fault-server.js';
import { ROOT, type RunOptions, runRuntime } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = 'fast-path-token-Hq7';
const PROBE = path.join(ROOT, 'test/fixtures/module-probe.cjs');
/** Loaded by a plain-http search, on every Node here. */
const SEARCH_MODULES = ['NativeModule net', 'NativeModule stream', 'Internal Binding tcp_wrap'];
/** Never loaded by a plain-http search without a proxy. */
const NEVER_ON_SEARCH = [
  'NativeModule http',
  'NativeModule https',
  'NativeModule tls',
  'NativeModule internal/deps/undici/undici',
];
const DOCS = [{ id: 'd1', content: 'Deployment goes through the release train.' }];

/** The Node running the tests, and the pinned deployment Node 22 once `npm test` installed it. */
const NODES = [process.execPath, ...(fs.existsSync(node22) ? [node22] : [])].map(
  (node) => [execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(), node] as const,
);

let dir: string;
let root: string;
let v4: FakeService;
let v6: FakeService;
const configs: Record<string, string> = {};

const config = (name: string, baseUrl: string, timeoutMs = 1500) =>
  writeJsonFile(path.join(dir, `${name}.json`), genericAutoRecallConfig(root, baseUrl, timeoutMs));
const hookEnv = (configFile: string) => ({
  QWEN_EXTERNAL_CONTEXT_CONFIG: configFile,
  CONTEXT_API_TOKEN: TOKEN,
});

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-fast-paths-')));
  root = path.join(dir, 'repo');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(dir, 'empty.cjs'), '');
  v4 = await startGenericSearch({ token: TOKEN, documents: DOCS });
  v6 = await startGenericSearch({ token: TOKEN, documents: DOCS, host: '::1' });
  configs['v4'] = config('v4', v4.url);
  configs['v6'] = config('v6', v6.url);
  configs['name'] = config('name', v4.url.replace('127.0.0.1', 'localhost'));
  configs['refused'] = config('refused', await refusedUrl());
});
afterAll(async () => {
  await Promise.all([v4.close(), v6.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `file` with the module probe preloaded; returns the run and every module it loaded. */
async function probed(node: string, file: string, options: RunOptions & { nodeArgs?: string[] } = {}) {
  const out = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.json`);
  const run = await runRuntime(file, {
    ...options,
    node,
    nodeArgs: [...(options.nodeArgs ?? []), '--require', PROBE],
    env: { ...options.env, MODULE_PROBE_OUT: out },
  });
  const { modules, threads } = JSON.parse(fs.readFileSync(out, 'utf8')) as {
    modules: string[];
    threads: number;
  };
  fs.rmSync(out);
  return { run, modules, threads };
}

/** Node's permission model refuses process.binding and internal modules: only public APIs work. */
function permissionArgs(node: string): string[] {
  const flag =
    spawnSync(node, ['--permission', '-e', '0']).status === 0 ? '--permission' : '--experimental-permission';
  return [flag, '--allow-fs-read=*', `--allow-fs-write=${dir}`];
}

describe('shipped code uses public Node APIs only', () => {
  const shipped = ['src', 'launcher', 'scripts'].flatMap((top) =>
    fs
      .readdirSync(path.join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(ts|mjs|cjs|js)$/.test(file))
      .map((file) => path.join(top, file)),
  );
  const bundles = fs
    .readdirSync(path.join(ROOT, 'dist/runtime'))
    .filter((file) => file.endsWith('.js'))
    .map((file) => path.join('dist/runtime', file));
  // process.binding, internalBinding, `{ binding } = process`, and the stream bindings by name.
  const INTERNAL =
    /process\.binding|internalBinding|[{,] *binding *[},].*= *process\b|tcp_wrap|pipe_wrap|stream_wrap/;

  it('finds the sources and the bundles it checks', () => {
    expect(shipped.length).toBeGreaterThan(100);
    expect(bundles).toContain('dist/runtime/auto-recall-search.js');
  });

  it('no source file and no built runtime names process.binding or internalBinding', () => {
    const offenders = [...shipped, ...bundles].filter((file) =>
      INTERNAL.test(fs.readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  // zod's start-up costs more than the rest of a search (docs/performance.md): the hooks' bundles
  // carry the generated config parser instead. The MCP server bundle is the control: it has zod.
  it.each([
    ['auto-recall.js', false],
    ['auto-recall-search.js', false],
    ['write-confirmation.js', false],
    ['approval-guard.js', false],
    ['mcp-server.js', false],
    ['mcp-server-main.js', true],
  ])('%s bundles zod: %s', (file, expected) => {
    expect(fs.readFileSync(path.join(ROOT, 'dist/runtime', file), 'utf8').includes('_zod')).toBe(expected);
  });

  // What the MCP SDK imports but a stdio server with zod v4 schemas never runs (scripts/build.mjs
  // stubs it): its start would load it for nothing. Each marker is a string only that package carries.
  it.each([
    ['ajv', 'ajv implementation error', 'ajv/dist/compile/validate/index.js'],
    ['zod v3', 'ZodEffects', 'zod/v3/types.js'],
    ['zod-to-json-schema', 'definitionPath', 'zod-to-json-schema/dist/esm/Options.js'],
  ])('mcp-server-main.js does not bundle %s', (_what, marker, packageFile) => {
    expect(fs.readFileSync(path.join(ROOT, 'dist/runtime/mcp-server-main.js'), 'utf8')).not.toContain(marker);
    // Negative control: the package itself carries the marker.
    expect(fs.readFileSync(path.join(ROOT, 'node_modules', packageFile), 'utf8')).toContain(marker);
  });

  it.each([
    ["process.binding('tcp_wrap')"],
    ["internalBinding('fs')"],
    ['const { binding } = process;'],
    ["load('pipe_wrap')"],
  ])('negative control: the pattern catches %s', (text) => {
    expect(INTERNAL.test(text)).toBe(true);
  });
});

describe.each(NODES)('Node %s', (_version, node) => {
  let bare: Set<string>;
  let bareThreads: number;
  /** libuv's default threadpool size, started by a hook's first fs.read. */
  const POOL_THREADS = 4;
  beforeAll(async () => {
    const start = await probed(node, 'empty', { via: path.join(dir, 'empty.cjs'), stdin: '' });
    bare = new Set(start.modules);
    bareThreads = start.threads;
  });
  const beyondBare = (modules: string[]) => modules.filter((m) => !bare.has(m)).sort();

  describe('the cheap hooks load nothing beyond a bare start, and start only the threadpool', () => {
    it.each<[string, string, () => string, RegExp]>([
      [
        'auto-recall continuation (no search)',
        'auto-recall.js',
        () => promptSubmitEvent(root, { submitted_prompt: undefined }),
        /^\{\}$/,
      ],
      ['write-confirmation ask', 'write-confirmation.js', () => preToolUseEvent(), /"ask"/],
      [
        'approval-guard ask (yolo)',
        'approval-guard.js',
        () => preToolUseEvent({ permission_mode: 'yolo', tool_name: 'run_shell_command' }),
        /"ask"/,
      ],
    ])('%s', async (_name, file, stdin, answer) => {
      const { run, modules, threads } = await probed(node, file, {
        stdin: stdin(),
        env: hookEnv(configs['v4']!),
        cwd: root,
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(answer);
      expect(beyondBare(modules)).toEqual([]);
      // Stdin is read with fs.read on libuv's threadpool (four threads): no other thread starts.
      expect(threads).toBe(bareThreads + POOL_THREADS);
    });
  });

  describe('the search path adds node:net, and nothing of http, tls or fetch', () => {
    it.each<[string, () => Record<string, string>]>([
      ['provider at 127.0.0.1', () => hookEnv(configs['v4']!)],
      ['provider at [::1]', () => hookEnv(configs['v6']!)],
      // Node's resolver (dns.lookup, on the same single thread) and its address-family fallback.
      ['provider by host name (localhost)', () => hookEnv(configs['name']!)],
      // The proxy port is closed: a request that went through it would fail.
      [
        'a proxy set but NO_PROXY naming the provider',
        () => ({ ...hookEnv(configs['v4']!), HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' }),
      ],
    ])('%s', async (_name, env) => {
      const { run, modules, threads } = await probed(node, 'auto-recall.js', {
        stdin: promptSubmitEvent(root),
        env: env(),
        cwd: root,
      });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/additionalContext/);
      const loaded = beyondBare(modules);
      expect(SEARCH_MODULES.filter((m) => !loaded.includes(m))).toEqual([]);
      expect(NEVER_ON_SEARCH.filter((m) => loaded.includes(m))).toEqual([]);
      expect(threads).toBe(bareThreads + POOL_THREADS);
    });
  });

  describe("under Node's permission model (internals refused) every hook answers the same", () => {
    const same = async (file: string, stdin: string | Buffer, env: Record<string, string>) => {
      const free = await runRuntime(file, { node, stdin, env, cwd: root });
      const restricted = await runRuntime(file, {
        node,
        nodeArgs: permissionArgs(node),
        stdin,
        env,
        cwd: root,
      });
      expect({ code: restricted.code, stdout: restricted.stdout, stderr: restricted.stderr }).toEqual({
        code: free.code,
        stdout: free.stdout,
        stderr: free.stderr,
      });
      return free;
    };

    it('a search answered with items, sent twice byte for byte', async () => {
      const before = v4.requests.length;
      const free = await same('auto-recall.js', promptSubmitEvent(root), hookEnv(configs['v4']!));
      expect(free.stdout).toMatch(/additionalContext/);
      expect(v4.requests.slice(before).map((r) => r.rawBody.toString())).toEqual([
        '{"query":"How should deployment work?","limit":5}',
        '{"query":"How should deployment work?","limit":5}',
      ]);
    });

    it.each<[string, string, () => string | Buffer, () => Record<string, string>, RegExp]>([
      [
        'auto-recall, stdin over 1 MiB',
        'auto-recall.js',
        () => Buffer.alloc(1024 * 1024 + 1, 0x20),
        () => hookEnv(configs['v4']!),
        /^\{\}$/,
      ],
      [
        'auto-recall, stdin not JSON',
        'auto-recall.js',
        () => '{"hook_event_name":',
        () => hookEnv(configs['v4']!),
        /^\{\}$/,
      ],
      [
        'auto-recall, a refused connection',
        'auto-recall.js',
        () => promptSubmitEvent(root),
        () => hookEnv(configs['refused']!),
        /^\{\}$/,
      ],
      [
        'auto-recall by host name',
        'auto-recall.js',
        () => promptSubmitEvent(root),
        () => hookEnv(configs['name']!),
        /additionalContext/,
      ],
      ['write-confirmation ask', 'write-confirmation.js', () => preToolUseEvent(), () => ({}), /"ask"/],
      ['write-confirmation, stdin not JSON (deny)', 'write-confirmation.js', () => '{', () => ({}), /"deny"/],
      [
        'approval-guard ask (yolo)',
        'approval-guard.js',
        () => preToolUseEvent({ permission_mode: 'yolo', tool_name: 'run_shell_command' }),
        () => ({}),
        /"ask"/,
      ],
    ])('%s', async (_name, file, stdin, env, answer) => {
      const free = await same(file, stdin(), env());
      expect(free.stdout).toMatch(answer);
    });

    it.each<Fault>(['reset-mid-body', 'headers-then-silence', 'oversize-declared', 'wrong-content-length'])(
      'provider fault %s',
      async (fault) => {
        const server = await startFaultServer({ fault });
        try {
          const free = await same(
            'auto-recall.js',
            promptSubmitEvent(root),
            hookEnv(config(fault, server.url, 400)),
          );
          expect(free.stdout).toBe('{}');
          expect(server.requests).toHaveLength(2);
        } finally {
          await server.close();
        }
      },
    );
  });

  describe('stdin that is a file or a device', () => {
    it('a regular file', async () => {
      const file = path.join(dir, 'event.json');
      fs.writeFileSync(file, promptSubmitEvent(root));
      const run = await runRuntime('auto-recall.js', {
        node,
        stdinFile: file,
        env: hookEnv(configs['v4']!),
        cwd: root,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/additionalContext/);
    });

    it('/dev/null: an empty event, `{}`', async () => {
      const run = await runRuntime('auto-recall.js', {
        node,
        stdinFile: '/dev/null',
        env: hookEnv(configs['v4']!),
      });
      expect({ code: run.code, signal: run.signal, stdout: run.stdout, stderr: run.stderr }).toEqual({
        code: 0,
        signal: null,
        stdout: '{}',
        stderr: '',
      });
    });
  });
});
