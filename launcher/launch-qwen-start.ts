// Entry of runtime/launch-qwen-start.js, what bin/launch-qwen runs: the launcher (launch-qwen.js)
// compiled from the V8 code cache render made with the pinned node — about 2 ms less at every session
// start (docs/performance.md, "The code cache"). Without a cache (Windows, or a node render could not
// run) it is a plain require. The cache has the bundle's trust: both sit in the root-owned runtime
// directory, pinned together in manifest.json, which the launcher then checks as for every start.
import { RUNTIME_CODE_CACHES } from '../src/contracts/runtime-files.js';
import { loadWithCodeCache } from '../src/startup/code-cache.js';

declare const __filename: string;
// This bundle's own require: the launcher resolves its sibling bundles with it.
declare const require: NodeJS.Require;

void (async () => {
  const cached = loadWithCodeCache(__filename, require, RUNTIME_CODE_CACHES.launcher);
  // The launcher runs at load; the build makes this import a require of the sibling bundle.
  if (cached === undefined) await import('./launch-qwen.js');
})();
