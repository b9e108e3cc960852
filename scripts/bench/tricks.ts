// The start-up tricks that remain (docs/performance.md, "The start-up tricks that remain"), each
// undone in a build of its own: `npm run bench` runs ours and the undone build in alternating pairs,
// and a trick stays only while it saves at least 1 ms where it is paid (TRICK_MIN_MS).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { buildRuntimes } from '../build.mjs';

export const TRICK_MIN_MS = 1;

export interface Trick {
  id: string;
  /** What the trick does, as the bench table names it. */
  name: string;
  /** Where it is paid: a hook scenario of scenarios.ts, the launcher, or the MCP server's start. */
  on: 'noop' | 'search' | 'write-confirmation' | 'approval-guard' | 'launcher' | 'mcp';
  /** Source file → its undone replacement (repository-relative). */
  swap?: Readonly<Record<string, string>>;
  /** Importers whose lazily loaded sibling bundle is bundled into theirs instead (scripts/build.mjs SPLIT). */
  together?: readonly string[];
  /**
   * Undone without its code cache: the search bundle's and the MCP server's left empty; the
   * launcher's bundle run directly, as a shim without launch-qwen-start.js would run it.
   */
  noCodeCache?: true;
}

export const TRICKS: readonly Trick[] = [
  {
    id: 'config-validator',
    name: "the hook's config checked by its generated validator, not zod",
    on: 'search',
    swap: { 'src/startup/validators/runtime-config.ts': 'scripts/bench/undone/runtime-config.ts' },
  },
  {
    id: 'code-cache',
    name: 'the search bundle compiled from its render-time V8 code cache',
    on: 'search',
    noCodeCache: true,
  },
  {
    id: 'mcp-code-cache',
    name: 'the MCP server compiled from its render-time V8 code cache',
    on: 'mcp',
    noCodeCache: true,
  },
  {
    id: 'split-search',
    name: 'the search code in a bundle of its own, loaded only after provenance',
    on: 'noop',
    together: ['src/runtimes/auto-recall/auto-recall.ts'],
  },
  {
    id: 'split-proxy',
    name: 'undici in a bundle of its own, loaded only for a request through a proxy',
    on: 'search',
    together: ['src/http/create-transport.ts'],
  },
  {
    id: 'http1',
    name: 'HTTP/1.1 spoken over node:net, not node:http',
    on: 'search',
    swap: { 'src/http/transport-node.ts': 'scripts/bench/undone/transport-node.ts' },
  },
  {
    id: 'stdin',
    name: "a hook's stdin read with fs.read, not process.stdin",
    on: 'noop',
    swap: { 'src/startup/stdin.ts': 'scripts/bench/undone/stdin.ts' },
  },
  {
    id: 'split-repository',
    name: "the repository's .qwen/ checks in a bundle of their own, loaded only when it has them",
    on: 'launcher',
    together: ['launcher/launch-qwen.ts'],
  },
  {
    id: 'launcher-validators',
    name: 'manifest.json and launch.json checked by their generated validators, not zod',
    on: 'launcher',
    swap: {
      'src/startup/validators/install-manifest.ts': 'scripts/bench/undone/install-manifest.ts',
      'src/startup/validators/launch-plan.ts': 'scripts/bench/undone/launch-plan.ts',
    },
  },
  {
    id: 'launcher-code-cache',
    name: 'the launcher compiled from its render-time V8 code cache',
    on: 'launcher',
    noCodeCache: true,
  },
  {
    id: 'chunked-hash',
    name: 'install files hashed through one reused 64 KiB buffer, not read whole',
    on: 'launcher',
    swap: { 'src/base/hash.ts': 'scripts/bench/undone/hash.ts' },
  },
];

/** Loads each `swap` key's replacement in its place (both repository-relative). */
function swapModules(root: string, swap: Readonly<Record<string, string>>) {
  const byPath = new Map(
    Object.entries(swap).map(([from, to]) => [path.join(root, from), path.join(root, to)]),
  );
  const loaded = new Set<string>();
  const plugin: Plugin = {
    name: 'undo-trick',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const replacement = byPath.get(args.path);
        if (replacement === undefined) return undefined;
        loaded.add(args.path);
        return {
          contents: fs.readFileSync(replacement, 'utf8'),
          loader: 'ts',
          resolveDir: path.dirname(replacement),
        };
      });
    },
  };
  return { plugin, missing: () => [...byPath.keys()].filter((file) => !loaded.has(file)) };
}

/**
 * The runtimes built into `dir` with the trick undone; the code-cache trick needs no build (`built`,
 * ours, is returned). `plugins` are added to the build (the instruction bench's longer budget).
 */
export async function buildUndone(
  root: string,
  trick: Trick,
  dir: string,
  built: string,
  plugins: Plugin[] = [],
): Promise<string> {
  if (trick.swap === undefined && trick.together === undefined) return built;
  for (const importer of trick.together ?? []) {
    if (!fs.existsSync(path.join(root, importer))) throw new Error(`trick ${trick.id}: no ${importer}`);
  }
  const swap = swapModules(root, trick.swap ?? {});
  await buildRuntimes(dir, [swap.plugin, ...plugins], [...(trick.together ?? [])]);
  // A replacement no bundle loaded means the trick moved: the bench must not measure nothing.
  const missing = swap.missing();
  if (missing.length > 0) throw new Error(`trick ${trick.id}: no runtime bundles ${missing.join(', ')}`);
  return dir;
}
