// Loads the bundled runtimes (dist/runtime after `npm run build`) as bytes for renderInstall, and
// makes the bundles' V8 code caches with the deployment's pinned node.
import { spawnSync } from 'node:child_process';
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCode } from '../../base/errors.js';
import { PinnedLayout } from '../../contracts/layout.js';
import { OPENCLAW_PLUGIN_BUNDLE, RUNTIME_CODE_CACHES } from '../../contracts/runtime-files.js';
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
 * `runtimeFiles` plus the code caches of RUNTIME_CODE_CACHES (the search bundle's, the launcher's, the MCP server's),
 * made by the deployment's pinned node on this machine; without them (another platform, no such
 * node, a node whose path others may write, a failed run) render writes every cache empty and the
 * bundles compile as before. The node runs only after the launcher's own StrictModes check of its
 * path, as this user, with an empty environment (a cache must be made under the flags the bundles run
 * with: none). All or none: the progress line says one thing for the install.
 */
export function withCodeCache(
  runtimeFiles: ReadonlyMap<string, Uint8Array>,
  deployment: CodeCacheDeployment,
  adminUid: number,
): { files: Map<string, Uint8Array>; cache: CodeCacheOutcome } {
  const files = new Map(runtimeFiles);
  const caches = Object.values(RUNTIME_CODE_CACHES);
  const skipped = (why: string) => {
    for (const cache of caches) files.delete(cache.file);
    return { files, cache: { made: false, why } as const };
  };
  const missing = caches.find((cache) => !runtimeFiles.has(cache.of));
  if (missing !== undefined) return skipped(`the runtimes have no ${missing.of}`);
  if (deployment.platform !== 'posix') return skipped(`a ${deployment.platform} deployment gets none`);
  if (process.platform === 'win32') return skipped('render runs on Windows here');
  const strict = new StrictModes(adminUid, fsSync);
  const chain = strict.checkChain(deployment.node);
  if (chain.kind === 'missing') return skipped(`the pinned node ${deployment.node} is not on this machine`);
  // A node others may write is never run by render (it may run as root): the launcher would refuse it too.
  if (chain.kind !== 'ok' || strict.problems().length > 0) {
    return skipped(`the pinned node ${deployment.node} fails the launcher's StrictModes check here`);
  }
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  for (const cache of caches) {
    const run = spawnSync(chain.realPath, codeCacheMakerArgs(layout.runtime(cache.of)), {
      input: runtimeFiles.get(cache.of),
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
      return skipped(`the pinned node ${deployment.node} made none for ${cache.of} (${how})`);
    }
    files.set(cache.file, run.stdout);
  }
  return { files, cache: { made: true, node: deployment.node } };
}

/** Render's progress detail for the code caches. */
export function codeCacheSummary(cache: CodeCacheOutcome): string {
  return cache.made
    ? `code caches (${Object.keys(RUNTIME_CODE_CACHES).join(', ')}) made with ${cache.node}`
    : `no code caches: ${cache.why}; the search hook, the launcher and the MCP server then compile their code at every start (render where the pinned node runs to make them)`;
}
