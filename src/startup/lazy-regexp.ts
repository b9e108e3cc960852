// A regular expression built on its first use instead of when its file is compiled: V8 parses a
// \p{…} class as soon as it compiles the script that holds its literal — even inside a function never
// called — which costs the write-confirmation hook about 1 ms at every start (docs/performance.md).
// Callers test an ASCII fast path first, so most inputs never build it at all.

export function lazyRegExp(source: string, flags: string): () => RegExp {
  let built: RegExp | undefined;
  return () => {
    built ??= new RegExp(source, flags);
    return built;
  };
}
