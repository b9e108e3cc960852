// Bounded stdin reading for hooks. Hooks start before every prompt, so this never touches
// process.stdin (loading net and streams costs more than the rest of a no-op hook): a pipe or
// socket — what Qwen gives a hook — is read on the event loop through Node's pipe handle, anything
// else (a file, a terminal, a Node without the bindings) with fs.read on the threadpool.
import { fstatSync, read } from 'node:fs';
import { type LibuvStreams, processLibuvStreams, routeReads } from '../../bindings/libuv-stream.js';
import { parseJsonBytes } from '../../text/json.js';

export type StdinResult = { kind: 'ok'; bytes: Buffer } | { kind: 'oversize' };

export interface StdinReader {
  result: Promise<StdinResult>;
  /** True while a threadpool read is in flight (a thread blocked on the descriptor). */
  pending(): boolean;
}

/**
 * Reads `fd` to its end, refusing more than `limit` bytes without buffering the rest. A broken
 * stream is treated like a closed one: the caller judges what it got. Meant for stdin: the pipe
 * handle closes a descriptor above 2 when done (libuv keeps 0–2 open), fs.read leaves it open.
 */
export function readStdin(
  limit: number,
  fd = 0,
  // null forces fs.read (an explicit undefined gets the default), like `streams: null` in transport-node.ts.
  streams: LibuvStreams | null | undefined = processLibuvStreams(),
): StdinReader {
  return streams != null && isPipeOrSocket(fd) ? readPipe(streams, fd, limit) : readThreadpool(fd, limit);
}

/** Only these may go to the pipe handle: libuv aborts the process when asked to poll a file. */
function isPipeOrSocket(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

function readPipe(streams: LibuvStreams, fd: number, limit: number): StdinReader {
  const handle = streams.pipe();
  if (handle.open(fd) < 0) return readThreadpool(fd, limit);
  const result = new Promise<StdinResult>((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const settle = (outcome: StdinResult) => {
      handle.onread = () => {};
      handle.close();
      resolve(outcome);
    };
    const done = () => settle({ kind: 'ok', bytes: Buffer.concat(chunks, total) });
    routeReads(streams, handle, {
      data: (chunk) => {
        total += chunk.byteLength;
        // One byte over the limit is enough to refuse: never keep reading a hostile stream.
        if (total > limit) return settle({ kind: 'oversize' });
        chunks.push(chunk);
      },
      end: done,
      error: done,
    });
    if (handle.readStart() < 0) done();
  });
  // Nothing blocks a thread here: a stdin that never closes leaves an ordinary exit possible.
  return { result, pending: () => false };
}

/**
 * fs.read on the threadpool. A read that never returns (a writer that never closes) pins a thread
 * that process.exit() would wait for: callers check pending() and end the process another way.
 */
function readThreadpool(fd: number, limit: number): StdinReader {
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
