// The kernel's socket tables read a piece at a time, stopping at the rows the judgement needs: the
// broker's caller lookup and the launcher's and verify's listener check give the answer of the whole
// tables, whatever the size of the reads (real files, and in-memory tables through an injected fs).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChunkReadFs } from '../../../src/base/hash.js';
import {
  type Connection,
  type Endpoint,
  firstInTable,
  kernelPeerUids,
  listenerTables,
  listenerUid,
  peerUid,
  SOCKET_TABLE_FILES,
  type SocketTables,
} from '../../../src/host/proc-net.js';

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
    expect(firstInTable(fs, tableFile(text), lookup, readBytes)).toBe(expected);
  });

  it('a table that does not end in a newline still has its last row read', () => {
    const text = `${HEADER}\n${CALLER_ROW}`;
    expect(firstInTable(fs, tableFile(text), lookup, 64)).toBe(1001);
  });

  it('stops reading at the piece that holds the row', () => {
    const seen: string[] = [];
    const uid = firstInTable(
      fs,
      tableFile(tableWith(20)),
      (lines: string) => {
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
    expect(firstInTable(fs, file(), lookup)).toBeUndefined();
  });
});

/** The two tables in memory, handed out `page` bytes a read like the kernel's; records what was opened. */
function kernelFs(tables: SocketTables, page = 4050): ChunkReadFs & { opened: string[]; bytes: number } {
  const open = new Map<number, { text: Buffer; at: number }>();
  const files: Record<string, string> = {
    [SOCKET_TABLE_FILES.tcp]: tables.tcp,
    [SOCKET_TABLE_FILES.tcp6]: tables.tcp6,
  };
  const fake = {
    opened: [] as string[],
    bytes: 0,
    openSync(file: string) {
      fake.opened.push(file);
      const fd = open.size + 3;
      open.set(fd, { text: Buffer.from(files[file]!, 'latin1'), at: 0 });
      return fd;
    },
    readSync(fd: number, buffer: Uint8Array, offset: number, length: number) {
      const f = open.get(fd)!;
      const n = Math.min(length, page, f.text.length - f.at);
      buffer.set(f.text.subarray(f.at, f.at + n), offset);
      f.at += n;
      fake.bytes += n;
      return n;
    },
    closeSync() {},
  };
  return fake;
}

describe('listenerTables: as much of the tables as the listener check needs', () => {
  const HEADER6 =
    '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
  const listen = (sl: number, local: string, uid: number) => row(sl, local, '00000000:0000', '0A', uid);
  const others = Array.from({ length: 300 }, (_, i) =>
    row(i + 10, `0100007F:${(40_000 + i).toString(16).toUpperCase()}`, '0100007F:03AC', '06', 0),
  );
  const v4 = (...rows: string[]) => `${[HEADER, ...rows, ...others].join('\n')}\n`;
  const v6 = (...rows: string[]) => `${[HEADER6, ...rows].join('\n')}\n`;
  const model: Endpoint = { address: '127.0.0.1', port: 940 };
  const provider: Endpoint = { address: '127.0.0.1', port: 941 };

  it.each<[string, SocketTables, Endpoint[], 'first page' | 'whole', Array<number | undefined>]>([
    [
      'both listeners bound exactly: the first page only, tcp6 never opened',
      { tcp: v4(listen(0, '0100007F:03AC', 998), listen(1, '0100007F:03AD', 998)), tcp6: v6() },
      [model, provider],
      'first page',
      [998, 998],
    ],
    [
      'an exact binding decides over a wildcard one of another uid',
      { tcp: v4(listen(0, '00000000:03AC', 1001), listen(1, '0100007F:03AC', 998)), tcp6: v6() },
      [model],
      'first page',
      [998],
    ],
    [
      'one listener free (the broker is not running): both tables whole',
      { tcp: v4(listen(0, '0100007F:03AC', 998)), tcp6: v6() },
      [model, provider],
      'whole',
      [998, undefined],
    ],
    [
      'held only through the wildcard address: both tables whole',
      { tcp: v4(listen(0, '00000000:03AC', 1001)), tcp6: v6() },
      [model],
      'whole',
      [1001],
    ],
    [
      'held only through a dual-stack wildcard in tcp6: both tables whole',
      { tcp: v4(), tcp6: v6(listen(0, '00000000000000000000000000000000:03AC', 1002)) },
      [model],
      'whole',
      [1002],
    ],
    [
      'an IPv6 listener: both tables whole',
      { tcp: v4(), tcp6: v6(listen(0, '00000000000000000000000001000000:03AC', 998)) },
      [{ address: '::1', port: 940 }],
      'whole',
      [998],
    ],
  ])('%s', (_name, tables, endpoints, extent, uids) => {
    const kernel = kernelFs(tables);
    const read = listenerTables(kernel, endpoints, 'LE');
    // The judgement is the whole tables' judgement.
    expect(endpoints.map((e) => listenerUid(read, e, 'LE'))).toEqual(uids);
    expect(endpoints.map((e) => listenerUid(tables, e, 'LE'))).toEqual(uids);
    if (extent === 'first page') {
      expect([kernel.opened, kernel.bytes]).toEqual([[SOCKET_TABLE_FILES.tcp], 4050]);
      expect(read.tcp6).toBe('');
    } else {
      // Each table read once: tcp whole on the way, then tcp6.
      expect(kernel.opened).toEqual([SOCKET_TABLE_FILES.tcp, SOCKET_TABLE_FILES.tcp6]);
      expect(read).toEqual(tables);
    }
  });

  it('negative control: stopping at the first LISTEN row of the port would take the wildcard owner', () => {
    const tables = { tcp: v4(listen(0, '00000000:03AC', 1001), listen(1, '0100007F:03AC', 998)), tcp6: v6() };
    const firstRowOnly = { tcp: tables.tcp.split('\n').slice(0, 2).join('\n'), tcp6: '' };
    expect(listenerUid(firstRowOnly, model, 'LE')).toBe(1001);
    expect(listenerUid(listenerTables(kernelFs(tables), [model], 'LE'), model, 'LE')).toBe(998);
  });
});

describe('kernelPeerUids: every connection accepted together, from one read of the tables', () => {
  /** The caller at port `40 000 + i` of 300 connections to the broker's 940, uid 1000 + i. */
  const others = Array.from({ length: 300 }, (_, i) =>
    row(i, `0100007F:${(40_000 + i).toString(16).toUpperCase()}`, '0100007F:03AC', '01', 1000 + i),
  );
  const at = (i: number): Connection => ({
    local: { address: '127.0.0.1', port: 940 },
    remote: { address: '127.0.0.1', port: 40_000 + i },
  });
  const tables = { tcp: `${[HEADER, ...others].join('\n')}\n`, tcp6: `${HEADER}\n` };

  it('answers each as peerUid does, reading tcp once and only as far as the last of their rows', () => {
    const wanted = [at(10), at(150), at(40), { ...at(5), local: { address: '127.0.0.1', port: 941 } }];
    const whole = wanted.map((c) => peerUid(tables, c, 'LE'));
    expect(whole).toEqual([1010, 1150, 1040, undefined]);
    // One without a row: tcp is read whole, tcp6 opened for it alone.
    const fs = kernelFs(tables);
    expect(kernelPeerUids(fs, wanted, 'LE')).toEqual(whole);
    expect(fs.opened).toEqual([SOCKET_TABLE_FILES.tcp, SOCKET_TABLE_FILES.tcp6]);
    // Every row found: tcp only, up to the page of the last of them.
    const found = kernelFs(tables);
    expect(kernelPeerUids(found, wanted.slice(0, 3), 'LE')).toEqual([1010, 1150, 1040]);
    expect(found.opened).toEqual([SOCKET_TABLE_FILES.tcp]);
    expect(found.bytes).toBeLessThan(tables.tcp.length);
  });

  it('on 2000 random tables, the batch answers what peerUid answers for each', () => {
    let seed = 11;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return (seed >>> 15) % n;
    };
    // Near misses of the wanted ends: the other port, swapped ends, other states, lower case.
    const ends = ['0100007F:9C40', '0100007F:9c41', '0100007F:03AC', '0100007F:03AD', '0200007F:9C40'];
    const states = ['01', '01', '06', '0A'];
    const wanted = [0, 1, 2].map((i) => at(i));
    let disagreements = 0;
    let answered = 0;
    for (let t = 0; t < 2000; t++) {
      const rows = Array.from({ length: 1 + next(8) }, (_, i) =>
        row(
          i,
          ends[next(ends.length)]!,
          ends[next(ends.length)]!,
          states[next(states.length)]!,
          1000 + next(5),
        ),
      );
      const text = `${[HEADER, ...rows].join('\n')}\n`;
      const batch = kernelPeerUids(kernelFs({ tcp: text, tcp6: '' }, 1 + next(600)), wanted, 'LE');
      const one = wanted.map((c) => peerUid({ tcp: text, tcp6: '' }, c, 'LE'));
      if (JSON.stringify(batch) !== JSON.stringify(one)) disagreements++;
      if (one.some((uid) => uid !== undefined)) answered++;
    }
    // The tables exercise both outcomes.
    expect(answered).toBeGreaterThan(100);
    expect(disagreements).toBe(0);
  });
});
