// libuv's default threadpool (four threads) instead of one (src/startup/threadpool.ts), for
// `npm run bench` only.
export function useOneThread(): void {}
