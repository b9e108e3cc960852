// The one definition of how a runtime bundle is compiled with a V8 code cache: the wrapper the
// render-time maker compiles and the hook's loader runs must be byte-identical, or the cached
// bytecode would not belong to the code it runs beside (V8 checks only the source length).
// docs/performance.md, "The code cache".

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
