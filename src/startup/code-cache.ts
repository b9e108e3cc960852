// The search bundle's V8 code cache, in one place: the wrapper the render-time maker compiles and the
// hook's loader runs (byte-identical, or the cached bytecode would not belong to the code it runs
// beside: V8 checks only the source length), the maker's program, and the loader. The cache is made
// at render time by the deployment's pinned node (src/deploy/render/runtime-files.ts) and pinned in
// the manifest with its bundle; it saves V8 compiling the functions a search runs, about 3 ms per
// prompt (docs/performance.md, "The code cache"). POSIX only: render makes none for Windows.
import { readFileSync } from 'node:fs';
import { RUNTIME_CODE_CACHE } from '../contracts/runtime-files.js';

const HEAD = '(function (exports, require, module, __filename, __dirname) {';
const TAIL = '\n})';

/** The CommonJS wrapper around a bundle's source, as both the maker and the loader compile it. */
export function codeCacheSource(bundleSource: string): string {
  return HEAD + bundleSource + TAIL;
}

/**
 * `node <these> <bundle path>`: the program the pinned node runs (bundle on stdin, the bundle's
 * installed path as argv[1]) to print the cache on stdout. V8 compiles functions lazily, so a cache
 * made right after compiling holds almost nothing: the maker compiles eagerly, then restores the
 * default before serializing, because V8 refuses a cache made under other flags. A fixed random
 * seed makes the bytes reproducible, so a fresh render (verify's drift check) makes the same file;
 * V8's flag check ignores the seed, so the hook needs none. Built inside the function: the hook
 * bundles this module for the wrapper and must not carry the maker's text.
 */
export function codeCacheMakerArgs(bundlePath: string): string[] {
  const maker = [
    "const v8 = require('node:v8');",
    "const { Script } = require('node:vm');",
    "const source = require('node:fs').readFileSync(0, 'utf8');",
    "v8.setFlagsFromString('--no-lazy');",
    `const script = new Script(${JSON.stringify(HEAD)} + source + ${JSON.stringify(TAIL)}, { filename: process.argv[1] });`,
    "v8.setFlagsFromString('--lazy');",
    'process.stdout.write(script.createCachedData());',
  ].join('\n');
  return ['--random-seed=1', '-e', maker, bundlePath];
}

/**
 * The search bundle beside `ownFile` (the running auto-recall.js), compiled with its cache; undefined
 * when there is no cache (an empty file: render could not run the pinned node) or it cannot be read,
 * and the caller then `require`s the bundle as usual. `ownRequire` is auto-recall.js's own: the two
 * bundles share a directory, so it resolves `./proxy-transport.js` exactly as the bundle's would.
 */
export async function loadSearchWithCodeCache<SearchModule>(
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
