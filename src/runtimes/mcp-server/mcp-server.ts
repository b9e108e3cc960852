// Entry of dist/runtime/mcp-server.js, what Qwen starts as the stdio MCP server `external-context` at
// every on-demand or write session: the server (mcp-server-main.js, the MCP SDK with it) compiled from
// the V8 code cache render made with the pinned node, which saves most of the server's compile
// (docs/performance.md, "The code cache"). Without a cache (Windows, or a node render could not run)
// it is a plain require. The cache has the bundle's trust: both are pinned together in manifest.json.
import { RUNTIME_CODE_CACHES } from '../../contracts/runtime-files.js';
import { loadWithCodeCache } from '../../startup/code-cache.js';

declare const __filename: string;
// This bundle's own require: the server resolves its sibling bundles (proxy-transport.js) with it.
declare const require: NodeJS.Require;

void (async () => {
  const cached = loadWithCodeCache<typeof import('./main.js')>(
    __filename,
    require,
    RUNTIME_CODE_CACHES.mcpServer,
  );
  // The build makes this import a require of the sibling bundle.
  const { main } = cached ?? (await import('./main.js'));
  await main();
})();
