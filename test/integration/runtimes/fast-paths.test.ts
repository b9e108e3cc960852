// Which path the BUILT hooks take, and that the other path answers the same. On the Node versions
// here, stdin goes through Node's pipe handle and an IP-literal http provider through its TCP
// handle: a hook loads nothing beyond a bare `node` start but three internal bindings. Where those
// are unusable (here: refused by Node's permission model) fs.read and node:net give the same bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { node22 } from '../../e2e/harness/paths.js';
import { type FakeService, startGenericSearch } from '../../fixtures/fake-services/index.js';
import { type Fault, refusedUrl, startFaultServer } from '../../fixtures/fault-server.js';
import { preToolUseEvent, promptSubmitEvent } from '../../fixtures/hook-events.js';
import { ROOT, type RunOptions, runRuntime } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, writeJsonFile } from '../../fixtures/runtime-config.js';

const TOKEN = 'fast-path-token-Hq7';
const PROBE = path.join(ROOT, 'test/fixtures/module-probe.cjs');
const STREAM_BINDINGS = [
  'Internal Binding pipe_wrap',
  'Internal Binding stream_wrap',
  'Internal Binding tcp_wrap',
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

/** The permission model refuses process.binding: the way to run the built hooks on their fallbacks. */
function permissionArgs(node: string): string[] {
  const flag =
    spawnSync(node, ['--permission', '-e', '0']).status === 0 ? '--permission' : '--experimental-permission';
  return [flag, '--allow-fs-read=*', `--allow-fs-write=${dir}`];
}

describe.each(NODES)('Node %s', (_version, node) => {
  let bare: Set<string>;
  let bareThreads: number;
  beforeAll(async () => {
    const start = await probed(node, 'empty', { via: path.join(dir, 'empty.cjs'), stdin: '' });
    bare = new Set(start.modules);
    bareThreads = start.threads;
  });
  const beyondBare = (modules: string[]) => modules.filter((m) => !bare.has(m)).sort();

  describe('fast path: nothing beyond a bare start but the three stream bindings', () => {
    it.each<[string, string, () => string, () => Record<string, string>, RegExp]>([
      [
        'auto-recall search, provider at 127.0.0.1',
        'auto-recall.js',
        () => promptSubmitEvent(root),
        () => hookEnv(configs['v4']!),
        /additionalContext/,
      ],
      [
        'auto-recall search, provider at [::1]',
        'auto-recall.js',
        () => promptSubmitEvent(root),
        () => hookEnv(configs['v6']!),
        /additionalContext/,
      ],
      [
        'auto-recall search, a proxy set but NO_PROXY naming the provider',
        'auto-recall.js',
        () => promptSubmitEvent(root),
        // The proxy port is closed: a request that went through it would fail.
        () => ({ ...hookEnv(configs['v4']!), HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' }),
        /additionalContext/,
      ],
      [
        'auto-recall continuation (no search)',
        'auto-recall.js',
        () => promptSubmitEvent(root, { submitted_prompt: undefined }),
        () => hookEnv(configs['v4']!),
        /^\{\}$/,
      ],
      ['write-confirmation ask', 'write-confirmation.js', () => preToolUseEvent(), () => ({}), /"ask"/],
      [
        'approval-guard ask (yolo)',
        'approval-guard.js',
        () => preToolUseEvent({ permission_mode: 'yolo', tool_name: 'run_shell_command' }),
        () => ({}),
        /"ask"/,
      ],
    ])('%s', async (_name, file, stdin, env, answer) => {
      const { run, modules, threads } = await probed(node, file, { stdin: stdin(), env: env(), cwd: root });
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(answer);
      expect(beyondBare(modules)).toEqual(STREAM_BINDINGS);
      // Nor the libuv threadpool: stdin and the socket are read on the event loop.
      expect(threads).toBe(bareThreads);
    });

    it('control: a provider named by host name goes through node:net (DNS stays Node’s)', async () => {
      const { run, modules } = await probed(node, 'auto-recall.js', {
        stdin: promptSubmitEvent(root),
        env: hookEnv(configs['name']!),
        cwd: root,
      });
      expect(run.stdout).toMatch(/additionalContext/);
      expect(beyondBare(modules)).toContain('NativeModule net');
    });
  });

  describe('fallback: with the bindings refused, fs.read and node:net answer the same bytes', () => {
    const same = async (stdin: string | Buffer, env: Record<string, string>) => {
      const fast = await runRuntime('auto-recall.js', { node, stdin, env, cwd: root });
      const slow = await probed(node, 'auto-recall.js', {
        nodeArgs: permissionArgs(node),
        stdin,
        env,
        cwd: root,
      });
      expect({ code: slow.run.code, stdout: slow.run.stdout, stderr: slow.run.stderr }).toEqual({
        code: fast.code,
        stdout: fast.stdout,
        stderr: fast.stderr,
      });
      return { fast, slow };
    };

    it('a search answered with items', async () => {
      const before = v4.requests.length;
      const { fast, slow } = await same(promptSubmitEvent(root), hookEnv(configs['v4']!));
      expect(fast.stdout).toMatch(/additionalContext/);
      expect(slow.modules).toContain('NativeModule net');
      expect(v4.requests.slice(before).map((r) => r.rawBody.toString())).toEqual([
        '{"query":"How should deployment work?","limit":5}',
        '{"query":"How should deployment work?","limit":5}',
      ]);
    });

    it.each<[string, () => string | Buffer]>([
      ['stdin over 1 MiB', () => Buffer.alloc(1024 * 1024 + 1, 0x20)],
      ['stdin not JSON', () => '{"hook_event_name":'],
      ['a continuation event', () => promptSubmitEvent(root, { submitted_prompt: undefined })],
    ])('%s', async (_name, stdin) => {
      const { fast, slow } = await same(stdin(), hookEnv(configs['v4']!));
      expect(fast.stdout).toBe('{}');
      // Stdin went through fs.read: nothing loaded the pipe binding.
      expect(slow.modules).not.toContain('Internal Binding pipe_wrap');
    });

    it('a refused connection', async () => {
      const { fast, slow } = await same(promptSubmitEvent(root), hookEnv(configs['refused']!));
      expect(fast.stdout).toBe('{}');
      expect(slow.modules).toContain('NativeModule net');
    });

    it.each<Fault>(['reset-mid-body', 'headers-then-silence', 'oversize-declared', 'wrong-content-length'])(
      'provider fault %s',
      async (fault) => {
        const server = await startFaultServer({ fault });
        try {
          const { fast, slow } = await same(promptSubmitEvent(root), hookEnv(config(fault, server.url, 400)));
          expect(fast.stdout).toBe('{}');
          expect(slow.modules).toContain('NativeModule net');
          expect(server.requests).toHaveLength(2);
        } finally {
          await server.close();
        }
      },
    );
  });

  describe('stdin that is not a pipe is read on the threadpool', () => {
    it('a regular file', async () => {
      const file = path.join(dir, 'event.json');
      fs.writeFileSync(file, promptSubmitEvent(root));
      const { run, threads } = await probed(node, 'auto-recall.js', {
        stdinFile: file,
        env: hookEnv(configs['v4']!),
        cwd: root,
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/additionalContext/);
      // The threadpool started: its workers joined the bare start's threads.
      expect(threads).toBeGreaterThan(bareThreads);
    });

    it('/dev/null (a device libuv must never be asked to poll): an empty event, `{}`', async () => {
      const { run, threads } = await probed(node, 'auto-recall.js', {
        stdinFile: '/dev/null',
        env: hookEnv(configs['v4']!),
      });
      expect({ code: run.code, signal: run.signal, stdout: run.stdout, stderr: run.stderr }).toEqual({
        code: 0,
        signal: null,
        stdout: '{}',
        stderr: '',
      });
      expect(threads).toBeGreaterThan(bareThreads);
    });

    it('a threadpool read that never returns: answered at the budget, then SIGKILL', async () => {
      const run = await runRuntime('auto-recall.js', {
        node,
        nodeArgs: permissionArgs(node),
        stdin: '{"hook_event_name":"UserPromptSubmit"',
        keepStdinOpen: true,
        env: hookEnv(configs['v4']!),
      });
      // Node cannot exit normally while a threadpool read of stdin is blocked; the answer is written.
      expect({ signal: run.signal, stdout: run.stdout, stderr: run.stderr }).toEqual({
        signal: 'SIGKILL',
        stdout: '{}',
        stderr: '',
      });
      expect(run.elapsedMs).toBeGreaterThan(6000);
    });
  });
});
