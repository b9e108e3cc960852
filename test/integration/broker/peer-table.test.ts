// The broker reads the kernel's socket table a piece at a time and stops at the caller's row: the same
// answer as a parse of the whole table, whatever the size of the reads, from real files.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { firstInTable } from '../../../src/broker/machine.js';
import { type Connection, peerUid } from '../../../src/host/proc-net.js';

const HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
// 150 bytes a row with its newline, as Linux prints them.
const row = (sl: number, local: string, remote: string, state: string, uid: number) =>
  `${String(sl).padStart(4)}: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000 ${String(uid).padStart(5)}        0 ${40_000 + sl} 1 0000000000000000 20 4 30 10 -1`.padEnd(
    149,
  );
const connection: Connection = {
  local: { address: '127.0.0.1', port: 940 },
  remote: { address: '127.0.0.1', port: 51234 },
};
const CALLER_ROW = row(0, '0100007F:C822', '0100007F:03AC', '01', 1001);
/** 300 rows of other connections (TIME_WAIT, other ports), the caller's row at `at`. */
function tableWith(at: number | undefined): string {
  const rows = Array.from({ length: 300 }, (_, i) =>
    row(i, `0100007F:${(40_000 + i).toString(16).toUpperCase()}`, '0100007F:03AC', '06', 0),
  );
  if (at !== undefined) rows[at] = CALLER_ROW;
  return `${[HEADER, ...rows].join('\n')}\n`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'peer-table-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
function tableFile(text: string): string {
  const file = path.join(dir, `tcp-${fs.readdirSync(dir).length}`);
  fs.writeFileSync(file, text);
  return file;
}
const lookup = (lines: string) => peerUid({ tcp: lines, tcp6: '' }, connection, 'LE');

describe('firstInTable: a piecewise read of a socket table', () => {
  it.each<[string, number | undefined, number]>([
    ['the row first, one-byte reads', 0, 1],
    ['the row first, reads ending mid-row', 0, 7],
    ['the row in the middle, reads one byte short of a row', 150, 149],
    ['the row in the middle, a page a read', 150, 4096],
    ['the row last, a page a read', 299, 4096],
    ['the row last, the whole table in one read', 299, 1 << 20],
    ['no row for the caller, a page a read', undefined, 4096],
  ])('%s: the answer of the whole table', (_name, at, readBytes) => {
    const text = tableWith(at);
    const expected = lookup(text);
    expect(expected).toBe(at === undefined ? undefined : 1001);
    expect(firstInTable(tableFile(text), lookup, readBytes)).toBe(expected);
  });

  it('a table that does not end in a newline still has its last row read', () => {
    const text = `${HEADER}\n${CALLER_ROW}`;
    expect(firstInTable(tableFile(text), lookup, 64)).toBe(1001);
  });

  it('stops reading at the piece that holds the row', () => {
    const seen: string[] = [];
    const uid = firstInTable(
      tableFile(tableWith(20)),
      (lines) => {
        seen.push(lines);
        return lookup(lines);
      },
      150 * 10,
    );
    expect(uid).toBe(1001);
    // Pieces of whole lines, in order, none after the row's.
    expect(seen.join('').split('\n').length - 1).toBeLessThanOrEqual(30);
    expect(seen.at(-1)).toContain(CALLER_ROW);
  });

  it.each<[string, () => string]>([
    ['a missing table (no /proc)', () => path.join(dir, 'absent')],
    ['a table that fails mid-read (a directory)', () => dir],
  ])('%s: no uid, so the caller is refused', (_name, file) => {
    expect(firstInTable(file(), lookup)).toBeUndefined();
  });
});
