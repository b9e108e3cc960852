import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex, sha256OfFile } from '../../../src/base/hash.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-hash-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Bytes that differ at every offset, so a chunk read twice or skipped changes the digest. */
function bytes(size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >> 8)) & 0xff;
  return out;
}

describe('sha256OfFile', () => {
  // Around the 64 KiB chunk: empty, one byte, one short of, exactly, one over, several chunks.
  it.each([0, 1, 65_535, 65_536, 65_537, 200_003])('%i bytes: the sha256 of the whole file', (size) => {
    const file = path.join(dir, `f${size}`);
    const content = bytes(size);
    fs.writeFileSync(file, content);
    const expected = createHash('sha256').update(content).digest('hex');
    expect(sha256OfFile(fs, file)).toBe(expected);
    expect(sha256Hex(content)).toBe(expected);
  });

  it.each([
    ['a missing file', 'missing', 'ENOENT'],
    ['a directory', '.', 'EISDIR'],
  ])('%s: node:fs’s own error code, and the descriptor closed', (_what, name, code) => {
    const opened: number[] = [];
    const closed: number[] = [];
    const spy = {
      openSync: (p: string, flags: 'r') => {
        const fd = fs.openSync(p, flags);
        opened.push(fd);
        return fd;
      },
      readSync: fs.readSync,
      closeSync: (fd: number) => {
        closed.push(fd);
        fs.closeSync(fd);
      },
    };
    expect(() => sha256OfFile(spy, path.join(dir, name))).toThrow(expect.objectContaining({ code }));
    expect(closed).toEqual(opened);
  });
});
