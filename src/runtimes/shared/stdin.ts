// Bounded, deadline-aware stdin reading for hooks. A writer that never closes stdin must not hold a
// hook past its budget, and more than `limit` bytes is refused without buffering the rest.
export type StdinResult = { kind: 'ok'; bytes: Buffer } | { kind: 'oversize' } | { kind: 'aborted' };

export const HOOK_STDIN_LIMIT = 1024 * 1024;

/**
 * Reads process.stdin through libuv's non-blocking stream. Not fs.read on fd 0: a blocking read of a
 * pipe that is never closed pins a threadpool thread, and process.exit() then waits for it forever.
 */
export function readStdin(
  limit: number,
  signal: AbortSignal,
  stream: NodeJS.ReadableStream = process.stdin,
): Promise<StdinResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (result: StdinResult) => {
      if (done) return;
      done = true;
      signal.removeEventListener('abort', onAbort);
      stream.removeListener('data', onData);
      resolve(result);
    };
    const onAbort = () => finish({ kind: 'aborted' });
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      // One byte over the limit is enough to refuse: never keep reading a hostile stream.
      if (total > limit) {
        finish({ kind: 'oversize' });
        stream.pause();
        return;
      }
      chunks.push(chunk);
    };
    if (signal.aborted) return finish({ kind: 'aborted' });
    signal.addEventListener('abort', onAbort);
    stream.on('data', onData);
    stream.on('end', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) }));
    // A broken stdin is treated like a closed one: the caller decides what partial input means.
    stream.on('error', () => finish({ kind: 'ok', bytes: Buffer.concat(chunks) }));
  });
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
