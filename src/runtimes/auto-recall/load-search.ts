// auto-recall-search.js compiled with the V8 code cache render made for it with the pinned node
// (runtime/auto-recall-search.v8cache, pinned in the manifest with the bundle): V8 then skips
// parsing and compiling the functions a search runs, about 12 M instructions per prompt
// (docs/performance.md, "The code cache"). node:vm loads only when there is a cache.
// POSIX only: render makes no cache for a Windows deployment, so `/` is the separator here.
import { readFileSync } from 'node:fs';
import { codeCacheSource } from '../../contracts/code-cache.js';
import { RUNTIME_CODE_CACHE } from '../../contracts/runtime-files.js';

type SearchModule = typeof import('./search.js');

/**
 * The search bundle beside `ownFile` (the running auto-recall.js), compiled with its cache; undefined
 * when there is no cache (an empty file: render could not run the pinned node) or it cannot be read,
 * and the caller then `require`s the bundle as usual. `ownRequire` is auto-recall.js's own: the two
 * bundles share a directory, so it resolves `./proxy-transport.js` exactly as the bundle's would.
 */
export async function loadSearchWithCodeCache(
  ownFile: string,
  ownRequire: NodeJS.Require,
): Promise<SearchModule | undefined> {
  const dir = ownFile.slice(0, ownFile.lastIndexOf('/'));
  const bundle = `${dir}/${RUNTIME_CODE_CACHE.of}`;
  let cachedData: Buffer;
  let source: string;
  try {
    cachedData = readFileSync(`${dir}/${RUNTIME_CODE_CACHE.file}`);
    if (cachedData.length === 0) return undefined;
    source = readFileSync(bundle, 'utf8');
  } catch {
    return undefined;
  }
  const { Script } = await import('node:vm');
  // A cache from another node or flag set is rejected here by V8 and the bundle compiles as usual.
  const script = new Script(codeCacheSource(source), { filename: bundle, cachedData });
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as SearchModule };
  wrapper.call(module.exports, module.exports, ownRequire, module, bundle, dir);
  return module.exports;
}
