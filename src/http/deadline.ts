// A cancellation signal that fires after `ms`: what a request needs from AbortSignal.timeout,
// without loading Node's AbortController and EventTarget (~0.4 ms of a hook's start, measured).
import type { CancelSignal } from './transport.js';

export function deadline(ms: number): CancelSignal {
  const listeners = new Set<() => void>();
  let aborted = false;
  const timer = setTimeout(() => {
    aborted = true;
    // Like an 'abort' event: each listener once, in the order added; none added later, and none
    // that an earlier listener removed.
    for (const listener of [...listeners]) {
      if (!listeners.delete(listener)) continue;
      listener();
    }
  }, ms);
  // Like AbortSignal.timeout: a pending deadline never keeps the process alive by itself.
  timer.unref();
  return {
    get aborted() {
      return aborted;
    },
    addEventListener(_type, listener) {
      if (!aborted) listeners.add(listener);
    },
    removeEventListener(_type, listener) {
      listeners.delete(listener);
    },
  };
}
