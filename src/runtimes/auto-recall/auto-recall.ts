// Entry of dist/runtime/auto-recall.js, Qwen's UserPromptSubmit command hook. Fail-open on every
// failure: stdout `{}`, empty stderr — within a 6500 ms budget that starts with the process.
// Only provenance is decided here; everything heavier lives in search.js, loaded when needed.

import { RUNTIME_CODE_CACHES } from '../../contracts/runtime-files.js';
import { loadWithCodeCache } from '../../startup/code-cache.js';
import { runHook } from '../shared/hook-main.js';
import { isEntryPoint } from '../shared/process.js';
import { readAutoRecallEvent } from './event.js';

const EMPTY = '{}';

export function main(): void {
  runHook({
    fallback: () => EMPTY,
    async answer(input) {
      const event = readAutoRecallEvent(input);
      // Continuation events and junk end here, before config, credentials, proxy or provider.
      if (event === undefined) return EMPTY;
      // As a bundle, the search code comes with its render-time code cache when there is one.
      const cached =
        typeof __filename === 'string'
          ? loadWithCodeCache<typeof import('./search.js')>(__filename, require, RUNTIME_CODE_CACHES.search)
          : undefined;
      const { searchAndRender } = cached ?? (await import('./search.js'));
      return searchAndRender(event, { env: process.env });
    },
  });
}

declare const __filename: string;
// The bundle's own CommonJS require (the loader hands it to the search bundle beside it).
declare const require: NodeJS.Require;
if (typeof __filename === 'string' && isEntryPoint(process.argv[1], __filename)) main();
