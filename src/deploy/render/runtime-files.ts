// Loads the bundled runtimes (dist/runtime after `npm run build`) as bytes for renderInstall, and
// makes the search bundle's V8 code cache with the deployment's pinned node.
import { spawnSync } from 'node:child_process';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCode } from '../../base/errors.js';
import { PinnedLayout } from '../../contracts/layout.js';
import { OPENCLAW_PLUGIN_BUNDLE, RUNTIME_CODE_CACHE } from '../../contracts/runtime-files.js';
import { StrictModes } from '../../host/strict-modes.js';
import { codeCacheMakerArgs } from '../../startup/code-cache.js';
import type { Deployment } from '../deployment/schema.js';
import { RenderError, requiredRuntimeFiles } from './render.js';

export async function loadRuntimeFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const missing: string[] = [];
  for (const name of requiredRuntimeFiles()) {
    const bytes = await fs.readFile(path.join(dir, name)).catch(() => undefined);
    if (bytes === undefined) missing.push(name);
    else files.set(name, bytes);
  }
  if (missing.length > 0) {
    throw new RenderError(
      `${dir} lacks the bundled runtime(s) ${missing.join(', ')}; run \`npm run build\` or pass --runtime-dir`,
    );
  }
  // Installed only with the openclaw-recall profile (render says so when it is missing then).
  const plugin = await fs.readFile(path.join(dir, OPENCLAW_PLUGIN_BUNDLE)).catch(() => undefined);
  if (plugin !== undefined) files.set(OPENCLAW_PLUGIN_BUNDLE, plugin);
  return files;
}

/**
 * The toolkit's own runtime folder: `dist/runtime` next to the CLI bundle (dist/cli/qwen-managed.js),
 * or `<repo>/dist/runtime` when running from the TypeScript sources.
 */
export async function defaultRuntimeDir(moduleUrl: string): Promise<string> {
  const here = path.dirname(fileURLToPath(moduleUrl));
  const candidates = [
    path.resolve(here, '..', 'runtime'),
    path.resolve(here, '..', '..', '..', 'dist', 'runtime'),
  ];
  for (const candidate of candidates) {
    if ((await fs.stat(path.join(candidate, 'launch-qwen.js')).catch(() => undefined)) !== undefined)
      return candidate;
  }
  return candidates[0]!;
}

/** What the cache maker needs of the deployment (the pinned node runs where the hooks will run it). */
export type CodeCacheDeployment = Pick<Deployment, 'platform' | 'installDir' | 'node'>;

/** Whether render made the code cache, and if not, why (render's progress line says it). */
export type CodeCacheOutcome = { made: true; node: string } | { made: false; why: string };

/**
 * `runtimeFiles` plus runtime/auto-recall-search.v8cache, made by the deployment's pinned node on
 * this machine; without it (another platform, no such node, a node whose path others may write, a
 * failed run) render writes the cache empty and the hook compiles as before. The node runs only
 * after the launcher's own StrictModes check of its path, as this user, with an empty environment
 * (the cache must be made under the flags the hooks run with: none).
 */
export function withCodeCache(
  runtimeFiles: ReadonlyMap<string, Uint8Array>,
  deployment: CodeCacheDeployment,
  adminUid: number,
): { files: Map<string, Uint8Array>; cache: CodeCacheOutcome } {
  const files = new Map(runtimeFiles);
  const skipped = (why: string) => ({ files, cache: { made: false, why } as const });
  const bundle = runtimeFiles.get(RUNTIME_CODE_CACHE.of);
  if (bundle === undefined) return skipped(`the runtimes have no ${RUNTIME_CODE_CACHE.of}`);
  if (deployment.platform !== 'posix') return skipped(`a ${deployment.platform} deployment gets none`);
  if (process.platform === 'win32') return skipped('render runs on Windows here');
  const strict = new StrictModes(adminUid, fsSync);
  const chain = strict.checkChain(deployment.node);
  if (chain.kind === 'missing') return skipped(`the pinned node ${deployment.node} is not on this machine`);
  // A node others may write is never run by render (it may run as root): the launcher would refuse it too.
  if (chain.kind !== 'ok' || strict.problems().length > 0) {
    return skipped(`the pinned node ${deployment.node} fails the launcher's StrictModes check here`);
  }
  const bundlePath = new PinnedLayout(deployment.platform, deployment.installDir).runtime(
    RUNTIME_CODE_CACHE.of,
  );
  const run = spawnSync(chain.realPath, codeCacheMakerArgs(bundlePath), {
    input: bundle,
    env: {},
    stdio: ['pipe', 'pipe', 'ignore'],
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  if (run.status !== 0 || run.stdout.length === 0) {
    // The exit first: a node that dies before reading its stdin also leaves an EPIPE behind.
    const how =
      run.status !== null && run.status !== 0
        ? `exit ${run.status}`
        : (run.signal ?? (run.error === undefined ? 'no output' : errorCode(run.error)));
    return skipped(`the pinned node ${deployment.node} made none (${how})`);
  }
  files.set(RUNTIME_CODE_CACHE.file, run.stdout);
  return { files, cache: { made: true, node: deployment.node } };
}

/** Render's progress detail for the code cache. */
export function codeCacheSummary(cache: CodeCacheOutcome): string {
  return cache.made
    ? `search code cache made with ${cache.node}`
    : `no search code cache: ${cache.why}; the hook then compiles the search code at every prompt (render where the pinned node runs to make it)`;
}
