// A hook's stdin read through process.stdin instead of fs.read on the threadpool
// (src/startup/stdin.ts), for `npm run bench` only.
import { parseJsonBytes } from '../../../src/text/json.js';

export type StdinResult = { kind: 'ok'; bytes: Buffer } | { kind: 'oversize' };

export interface StdinReader {
  result: Promise<StdinResult>;
  pending(): boolean;
}

export function readStdin(limit: number): StdinReader {
  const result = new Promise<StdinResult>((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => resolve({ kind: 'ok', bytes: Buffer.concat(chunks, total) });
    process.stdin.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) resolve({ kind: 'oversize' });
      else chunks.push(chunk);
    });
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
  return { result, pending: () => false };
}

export function parseJson(bytes: Buffer): unknown {
  const parsed = parseJsonBytes(bytes);
  return parsed.ok ? parsed.value : undefined;
}
