#!/usr/bin/env node
// Builds the self-contained runtimes (CommonJS, no node_modules at run time) and the admin CLI.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');

/** Bundled into <installDir>/runtime: each file must run as `node <file>` from anywhere. */
const RUNTIMES = {
  'auto-recall.js': 'src/runtimes/auto-recall/auto-recall.ts',
  'write-confirmation.js': 'src/runtimes/write-confirmation/write-confirmation.ts',
  // What Qwen starts: mcp-server-main.js compiled from its render-time code cache.
  'mcp-server.js': 'src/runtimes/mcp-server/mcp-server.ts',
  'mcp-server-main.js': 'src/runtimes/mcp-server/main.ts',
  'approval-guard.js': 'src/runtimes/approval-guard/approval-guard.ts',
  'launch-qwen.js': 'launcher/launch-qwen.ts',
  // What bin/launch-qwen runs: launch-qwen.js compiled from its render-time code cache.
  'launch-qwen-start.js': 'launcher/launch-qwen-start.ts',
  // Loaded by auto-recall.js only after provenance passed: the no-op path never reads or compiles it.
  'auto-recall-search.js': 'src/runtimes/auto-recall/search.ts',
  // undici's proxy agent, loaded by the search and MCP bundles only when a proxy variable is set.
  'proxy-transport.js': 'src/http/transport-proxy.ts',
  // The workspace-settings and agent checks (YAML parser, settings table), loaded by the launcher
  // only for a trusted repository that has a .qwen/settings.json or .qwen/agents/.
  'launch-repository.js': 'launcher/repository-project.ts',
  // The admin rollback tool, self-contained, so an install without node_modules can roll back.
  'rollback.js': 'src/cli/qwen-managed-rollback.ts',
};

const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));

/**
 * Lazily loaded pieces stay separate files: a dynamic import (or a require, for a synchronous caller)
 * of one of these becomes a require of the sibling bundle in <installDir>/runtime, resolved next to the requiring bundle's real path.
 */
const SPLIT = {
  'src/runtimes/auto-recall/auto-recall.ts': { './search.js': './auto-recall-search.js' },
  'src/http/create-transport.ts': { './transport-proxy.js': './proxy-transport.js' },
  'launcher/launch-qwen.ts': { './repository-project.js': './launch-repository.js' },
  'launcher/launch-qwen-start.ts': { './launch-qwen.js': './launch-qwen.js' },
  'src/runtimes/mcp-server/mcp-server.ts': { './main.js': './mcp-server-main.js' },
};

/** `together`: importers (keys of SPLIT) whose lazy pieces stay in their bundle (the bench undoes a split). */
const splitPlugin = (together = []) => ({
  name: 'split-lazy-bundles',
  setup(b) {
    b.onResolve({ filter: /^\.\// }, (args) => {
      const rel = args.importer
        .slice(root.length + 1)
        .split('\\')
        .join('/');
      const target = together.includes(rel) ? undefined : SPLIT[rel]?.[args.path];
      return target === undefined || (args.kind !== 'dynamic-import' && args.kind !== 'require-call')
        ? undefined
        : { path: target, external: true };
    });
  },
});

/**
 * What the MCP SDK imports but our stdio server never runs, replaced in mcp-server-main.js by stubs that
 * throw if reached: ajv (the SDK checks elicitation answers with it, and builds it in Server's
 * constructor unless given a validator; our server never elicits and passes its own, server.ts), and
 * zod v3 with zod-to-json-schema (only for zod v3 schemas; ours are v4). Loading them cost the
 * server's start more than 1 ms (docs/performance.md); test/integration/runtimes/fast-paths.test.ts
 * checks the bundle carries none of them.
 */
const MCP_SDK_UNUSED = [
  {
    specifier: /\/validation\/ajv-provider\.js$/,
    stub: 'export class AjvJsonSchemaValidator { constructor() { throw new Error("ajv is not bundled"); } }',
  },
  { specifier: /^zod\/v3$/, stub: 'export function object() { throw new Error("zod v3 is not bundled"); }' },
  {
    specifier: /^zod-to-json-schema$/,
    stub: 'export function zodToJsonSchema() { throw new Error("zod-to-json-schema is not bundled"); }',
  },
];

const mcpSdkUnusedPlugin = {
  name: 'mcp-sdk-unused',
  setup(b) {
    for (const [index, { specifier }] of MCP_SDK_UNUSED.entries()) {
      // Only the SDK's own imports: our code never imports these.
      b.onResolve({ filter: specifier }, (args) =>
        args.importer.split('\\').join('/').includes('/node_modules/@modelcontextprotocol/sdk/')
          ? { path: String(index), namespace: 'mcp-sdk-unused' }
          : undefined,
      );
    }
    b.onLoad({ filter: /.*/, namespace: 'mcp-sdk-unused' }, (args) => ({
      contents: MCP_SDK_UNUSED[Number(args.path)].stub,
      loader: 'js',
    }));
  },
};

/** Plugins of one runtime bundle only. */
const RUNTIME_PLUGINS = { 'mcp-server-main.js': [mcpSdkUnusedPlugin] };

const common = {
  bundle: true,
  define: { TOOLKIT_VERSION: JSON.stringify(pkg.version) },
  platform: 'node',
  target: 'node20.18',
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
};

/** esbuild options of every runtime bundle (and of the bench's reference hook, built the same way). */
export const RUNTIME_BUNDLE_OPTIONS = {
  ...common,
  // CommonJS: a bare CommonJS start is measurably cheaper than ESM (docs/performance.md).
  format: 'cjs',
  minify: true,
  // A dynamic import() in CommonJS would start Node's ESM loader (tens of ms); require() does not.
  supported: { 'dynamic-import': false },
};

/**
 * Bundles the runtime `file` (a key of RUNTIMES) into `dir`, lazily loaded pieces split off as in
 * the install. `plugins` are added after the split plugin: the instruction bench
 * (scripts/bench/instructions.ts) builds the same bundles with a longer hook budget, `npm run bench`
 * with a start-up trick undone (scripts/bench/tricks.ts; `together` undoes a split).
 */
async function bundleRuntime(dir, file, plugins, together) {
  await build({
    ...RUNTIME_BUNDLE_OPTIONS,
    entryPoints: [RUNTIMES[file]],
    outfile: join(dir, file),
    plugins: [splitPlugin(together), ...(RUNTIME_PLUGINS[file] ?? []), ...plugins],
  });
}

/** Bundles every runtime into `dir`, with the marker that makes its `.js` files CommonJS. */
export async function buildRuntimes(dir, plugins = [], together = []) {
  await mkdir(dir, { recursive: true });
  await Promise.all(Object.keys(RUNTIMES).map((file) => bundleRuntime(dir, file, plugins, together)));
  // The package is ESM; this marker makes the runtime folder's .js files CommonJS.
  await writeFile(join(dir, 'package.json'), '{"type":"commonjs"}\n');
}

/**
 * The OpenClaw plugin: one ES module with everything inlined (the proxy transport too), because
 * OpenClaw imports a plugin's entry from its package directory, which render writes as
 * runtime/openclaw-recall/ (index.mjs beside openclaw.plugin.json and package.json).
 */
export const OPENCLAW_PLUGIN = {
  file: 'openclaw-recall.mjs',
  entry: 'src/runtimes/openclaw-recall/plugin.ts',
};

async function buildOpenclawPlugin(dir) {
  await build({
    ...common,
    entryPoints: [OPENCLAW_PLUGIN.entry],
    outfile: join(dir, OPENCLAW_PLUGIN.file),
    format: 'esm',
    minify: true,
    // Bundled CommonJS dependencies (undici) call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __qmCreateRequire } from 'node:module'; const require = __qmCreateRequire(import.meta.url);",
    },
  });
}

async function main() {
  await rm(out, { recursive: true, force: true });
  await buildRuntimes(join(out, 'runtime'));
  await buildOpenclawPlugin(join(out, 'runtime'));
  await build({
    ...common,
    entryPoints: ['src/cli/qwen-managed.ts'],
    outfile: join(out, 'cli', 'qwen-managed.js'),
    format: 'esm',
    // The admin CLI runs from an installed package: its dependencies come from node_modules.
    packages: 'external',
    banner: { js: '#!/usr/bin/env node' },
  });
  // The package's `launch-qwen` on PATH: finds the deployed install and runs its bin/launch-qwen.
  await build({
    ...common,
    entryPoints: ['src/cli/launch-qwen-locator.ts'],
    outfile: join(out, 'cli', 'launch-qwen.js'),
    format: 'esm',
    banner: { js: '#!/usr/bin/env node' },
  });
}

// Imported by the instruction bench for buildRuntimes; run as a script, it builds dist/.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
