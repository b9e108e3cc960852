// Bounded stdin reading for hooks, with fs.read on the threadpool. Not process.stdin: for a pipe or
// socket (what Qwen gives a hook) it loads node:net and Node's stream stack, which costs more than
// the rest of a no-op hook (docs/performance.md).
import { read } from 'node:fs';
import { parseJsonBytes } from '../text/json.js';

export type StdinResult = { kind: 'ok'; bytes: Buffer } | { kind: 'oversize' };

export interface StdinReader {
  result: Promise<StdinResult>;
  /** True while a read is in flight (a threadpool thread blocked on the descriptor). */
  pending(): boolean;
}

/**
 * Reads `fd` to its end, refusing more than `limit` bytes without buffering the rest. A broken
 * stream is treated like a closed one: the caller judges what it got. The descriptor stays open.
 * A read that never returns (a writer that never closes) pins a thread that process.exit() would
 * wait for: callers check pending() and end the process another way.
 */
export function readStdin(limit: number, fd = 0): StdinReader {
  let inFlight = false;
  const result = new Promise<StdinResult>((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const step = () => {
      const buffer = Buffer.allocUnsafe(65536);
      inFlight = true;
      read(fd, buffer, 0, buffer.length, null, (error, n) => {
        inFlight = false;
        if (error !== null || n === 0) return resolve({ kind: 'ok', bytes: Buffer.concat(chunks, total) });
        total += n;
        // One byte over the limit is enough to refuse: never keep reading a hostile stream.
        if (total > limit) return resolve({ kind: 'oversize' });
        chunks.push(buffer.subarray(0, n));
        step();
      });
    };
    step();
  });
  return { result, pending: () => inFlight };
}

/** UTF-8 (fatal) + JSON.parse; undefined for anything that is not valid JSON text. */
export function parseJson(bytes: Buffer): unknown {
  const parsed = parseJsonBytes(bytes);
  return parsed.ok ? parsed.value : undefined;
}
