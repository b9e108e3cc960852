// The regular expression built when its module loads instead of on first use
// (src/startup/lazy-regexp.ts), for `npm run bench` only.
export function lazyRegExp(source: string, flags: string): () => RegExp {
  const built = new RegExp(source, flags);
  return () => built;
}
