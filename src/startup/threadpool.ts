// A hook's libuv threadpool, one thread instead of four: all a hook uses it for is its stdin read
// (stdin.ts) and at most one DNS lookup, and starting four threads costs it measurably more
// (docs/performance.md, "The start-up tricks that remain").

/**
 * Must run before the first threadpool call: libuv reads the variable when the pool starts. The
 * launcher never passes the variable on (policies/environment.json), so nothing is overridden.
 */
export function useOneThread(env: NodeJS.ProcessEnv = process.env): void {
  env['UV_THREADPOOL_SIZE'] = '1';
}
