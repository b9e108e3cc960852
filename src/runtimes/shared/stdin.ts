// Bounded stdin reading for hooks. Hooks start before every prompt, so this avoids process.stdin
// (loading net and streams costs more than the rest of a no-op hook) and reads fd 0 with fs.read.

import { read } from 'node:fs';

export type StdinResult = { kind: 'ok'; bytes: Buffer } | { kind: 'oversize' };

export const HOOK_STDIN_LIMIT = 1024 * 1024;

export interface StdinReader {
  result: Promise<StdinResult>;
  /** True while a read is in flight (a threadpool thread blocked on the pipe). */
  pending(): boolean;
}

/**
 * Reads fd 0 to its end, refusing more than `limit` bytes without buffering the rest. A read that
 * never returns (a writer that never closes stdin) pins a threadpool thread that process.exit()
 * would wait for: callers check pending() and end the process another way (see hook-main.ts).
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
        // EOF, or a broken stdin (treated like a closed one): the caller judges what it got.
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
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
