// The bundled runtime files of an install, in a module of their own: auto-recall.js needs these names
// on every prompt, and bundling them from names.ts would carry that module's other constants along
// (esbuild keeps its computed permission names).

/** Bundled runtime files, as built into dist/runtime and installed into <installDir>/runtime. */
export const RUNTIME_FILES = {
  /** The launcher. */
  launcher: 'launch-qwen.js',
  /** What bin/launch-qwen runs: compiles the launcher from its code cache (a plain require without one). */
  launcherStart: 'launch-qwen-start.js',
  autoRecall: 'auto-recall.js',
  writeConfirmation: 'write-confirmation.js',
  /** What Qwen starts: compiles the server (mcp-server-main.js) from its code cache (a plain require without one). */
  mcpServer: 'mcp-server.js',
  /** The stdio MCP server itself, the MCP SDK bundled in. */
  mcpServerMain: 'mcp-server-main.js',
  approvalGuard: 'approval-guard.js',
  /** The admin rollback tool, self-contained, so an install without node_modules can roll itself back. */
  rollback: 'rollback.js',
  /** auto-recall.js loads it only after provenance passed, so the no-op path never compiles it. */
  autoRecallSearch: 'auto-recall-search.js',
  /** undici's proxy agent, loaded by the search and MCP bundles only when a proxy variable is set. */
  proxyTransport: 'proxy-transport.js',
  /** The workspace-settings and agent checks, loaded by the launcher only for a repository with `.qwen/` settings or agents. */
  launchRepository: 'launch-repository.js',
} as const;
/**
 * V8's code caches, made at render time by the deployment's pinned node (docs/performance.md): the
 * search bundle's (compiled before every search prompt), the launcher's (at every session start) and
 * the MCP server's (at every on-demand or write session start).
 * Empty when render could not run that node. Each is pinned in the manifest with its bundle — V8
 * checks only the source length, so the two are only ever written together.
 */
export const RUNTIME_CODE_CACHES = {
  search: { file: 'auto-recall-search.v8cache', of: RUNTIME_FILES.autoRecallSearch },
  launcher: { file: 'launch-qwen.v8cache', of: RUNTIME_FILES.launcher },
  mcpServer: { file: 'mcp-server-main.v8cache', of: RUNTIME_FILES.mcpServerMain },
} as const;
export type RuntimeCodeCache = (typeof RUNTIME_CODE_CACHES)[keyof typeof RUNTIME_CODE_CACHES];
/** The bundles are CommonJS (a cheaper start than ESM); this marker makes `.js` mean CommonJS there. */
export const RUNTIME_MODULE_MARKER = { file: 'package.json', content: '{"type":"commonjs"}\n' } as const;

/**
 * The OpenClaw plugin bundle in dist/runtime (an ES module). Render installs it only with the
 * openclaw-recall profile, as the entry of the plugin package OPENCLAW_PLUGIN_PACKAGE.
 */
export const OPENCLAW_PLUGIN_BUNDLE = 'openclaw-recall.mjs';
