// The bundles' V8 code caches, in one place: the wrapper the render-time maker compiles and the
// loader runs (byte-identical, or the cached bytecode would not belong to the code it runs beside:
// V8 checks only the source length), the maker's program, and the loader. Each cache is made at
// render time by the deployment's pinned node (src/deploy/render/runtime-files.ts) and pinned in the
// manifest with its bundle; it saves V8 compiling the functions the bundle runs — about 3 ms per
// search prompt, about 2 ms per launcher start (docs/performance.md, "The code cache"). POSIX only:
// render makes none for Windows.
import { readFileSync } from 'node:fs';
import type { RuntimeCodeCache } from '../contracts/runtime-files.js';

const HEAD = '(function (exports, require, module, __filename, __dirname) {';
const TAIL = '\n})';

/**
 * The CommonJS wrapper around a bundle's bytes, as both the maker and the loader compile it. Joined
 * as bytes and decoded once: one string of the whole, not the file's text and then a joined copy in
 * V8's young generation (less to collect at each start, docs/performance.md).
 */
export function codeCacheSource(bundle: Uint8Array): string {
  return Buffer.concat([Buffer.from(HEAD), bundle, Buffer.from(TAIL)]).toString('utf8');
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
 * The bundle of `cache` beside `ownFile` (the running loader: auto-recall.js, launch-qwen-start.js),
 * compiled with its cache and run; undefined when there is no cache (an empty file: render could not
 * run the pinned node) or it cannot be read, and the caller then `require`s the bundle as usual.
 * `ownRequire` is the loader's own: the bundles share a directory, so it resolves a sibling bundle
 * (`./proxy-transport.js`, `./launch-repository.js`) exactly as the bundle's would.
 */
export function loadWithCodeCache<BundleModule>(
  ownFile: string,
  ownRequire: NodeJS.Require,
  cache: RuntimeCodeCache,
): BundleModule | undefined {
  const dir = ownFile.slice(0, ownFile.lastIndexOf('/'));
  const bundle = `${dir}/${cache.of}`;
  let cachedData: Buffer;
  let source: string;
  try {
    cachedData = readFileSync(`${dir}/${cache.file}`);
    if (cachedData.length === 0) return undefined;
    source = codeCacheSource(readFileSync(bundle));
  } catch {
    return undefined;
  }
  // The built-in itself, not a bundled `import()`: that copies every export of node:vm first.
  const { Script } = process.getBuiltinModule('node:vm');
  // A cache from another node or flag set is rejected here by V8 and the bundle compiles as usual.
  const script = new Script(source, { filename: bundle, cachedData });
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} as BundleModule };
  wrapper.call(module.exports, module.exports, ownRequire, module, bundle, dir);
  return module.exports;
}
