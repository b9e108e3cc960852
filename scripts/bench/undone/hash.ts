// src/base/hash.ts with the chunked read undone: each install file read whole into fresh memory, then
// hashed (the bench's `chunked-hash` trick row).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface ChunkReadFs {
  openSync(path: string, flags: 'r'): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
}

export function sha256OfFile(_fs: ChunkReadFs, path: string): string {
  return sha256Hex(readFileSync(path));
}
