// The peer-UID lookup the credential broker trusts, and the listener-owner lookup the launcher trusts:
// rows exactly as Linux prints /proc/net/tcp and /proc/net/tcp6 (little-endian words, network-order
// ports). The broker listens on 127.0.0.1:940 (03AC); callers connect from port 51234 (C822).
import { describe, expect, it } from 'vitest';
import {
  type Connection,
  canonicalAddress,
  linesNamingPort,
  listenerUid,
  parseHexEndpoint,
  parseSocketTable,
  peerUid,
  type SocketTables,
  unprivilegedPortStart,
} from '../../../src/host/proc-net.js';

const TCP_HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const TCP6_HEADER =
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';

/** One row: `sl: local remote st tx:rx tr:when retrnsmt uid timeout inode`. */
function row(sl: number, local: string, remote: string, state: string, uid: number): string {
  return `   ${sl}: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000 ${String(uid).padStart(5)}        0 ${40_000 + sl} 1 0000000000000000 20 4 30 10 -1`;
}

const V4_LOOP = '0100007F'; // 127.0.0.1, little-endian word
const V6_LOOP = '00000000000000000000000001000000'; // ::1
const V4_MAPPED = '0000000000000000FFFF00000100007F'; // ::ffff:127.0.0.1
const V6_ANY = '00000000000000000000000000000000';
const BROKER = '03AC'; // 940
const CALLER = 'C822'; // 51234

const table = (header: string, ...rows: string[]) => [header, ...rows, ''].join('\n');
const tables = (tcp: string[], tcp6: string[] = []): SocketTables => ({
  tcp: table(TCP_HEADER, ...tcp),
  tcp6: table(TCP6_HEADER, ...tcp6),
});

const v4Connection: Connection = {
  local: { address: '127.0.0.1', port: 940 },
  remote: { address: '127.0.0.1', port: 51234 },
};
const v6Connection: Connection = {
  local: { address: '::1', port: 940 },
  remote: { address: '::1', port: 51234 },
};

describe('peerUid: the uid at the caller end of an accepted loopback connection', () => {
  const listening = row(0, `${V4_LOOP}:${BROKER}`, '00000000:0000', '0A', 998);
  const serverSide = row(2, `${V4_LOOP}:${BROKER}`, `${V4_LOOP}:${CALLER}`, '01', 998);

  it.each<[string, SocketTables, Connection, number | undefined]>([
    [
      'IPv4 row: the caller end (local = caller, remote = broker), ESTABLISHED',
      tables([listening, row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${BROKER}`, '01', 1001), serverSide]),
      v4Connection,
      1001,
    ],
    [
      'IPv6 row (::1 on both ends), read from tcp6',
      tables(
        [],
        [
          row(0, `${V6_LOOP}:${BROKER}`, `${V6_ANY}:0000`, '0A', 998),
          row(1, `${V6_LOOP}:${CALLER}`, `${V6_LOOP}:${BROKER}`, '01', 1002),
          row(2, `${V6_LOOP}:${BROKER}`, `${V6_LOOP}:${CALLER}`, '01', 998),
        ],
      ),
      v6Connection,
      1002,
    ],
    [
      'an IPv4 caller on a dual-stack socket: its row is in tcp6 with IPv4-mapped addresses',
      tables(
        [listening, serverSide],
        [row(0, `${V4_MAPPED}:${CALLER}`, `${V4_MAPPED}:${BROKER}`, '01', 1003)],
      ),
      v4Connection,
      1003,
    ],
    [
      'a row of another uid is that uid (the broker then refuses it)',
      tables([listening, row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${BROKER}`, '01', 1999), serverSide]),
      v4Connection,
      1999,
    ],
    [
      'no row for the caller (it already closed, or another namespace)',
      tables([listening, serverSide]),
      v4Connection,
      undefined,
    ],
    [
      "the broker's own end of the connection is never taken for the caller",
      tables([serverSide]),
      v4Connection,
      undefined,
    ],
    [
      'a TIME_WAIT row reports uid 0 and is never taken for root',
      tables([listening, row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${BROKER}`, '06', 0), serverSide]),
      v4Connection,
      undefined,
    ],
    [
      'another caller port of the same user does not match',
      tables([listening, row(1, `${V4_LOOP}:C823`, `${V4_LOOP}:${BROKER}`, '01', 1001)]),
      v4Connection,
      undefined,
    ],
    [
      'the same caller port to another broker port does not match',
      tables([listening, row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:03AD`, '01', 1001)]),
      v4Connection,
      undefined,
    ],
    [
      'malformed lines are skipped, the real row still found',
      {
        tcp: `${TCP_HEADER}\n   9: garbage\n   8: ${V4_LOOP}:${CALLER} ${V4_LOOP}:${BROKER} 01 x\n${row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${BROKER}`, '01', 1004)}\n`,
        tcp6: '',
      },
      v4Connection,
      1004,
    ],
    ['empty tables (no /proc)', { tcp: '', tcp6: '' }, v4Connection, undefined],
  ])('%s', (_name, socketTables, connection, uid) => {
    expect(peerUid(socketTables, connection, 'LE')).toBe(uid);
  });

  it('a big-endian host prints the same address with its bytes in memory order', () => {
    const be = tables([row(1, `7F000001:${CALLER}`, `7F000001:${BROKER}`, '01', 1005)]);
    expect(peerUid(be, v4Connection, 'BE')).toBe(1005);
    expect(peerUid(be, v4Connection, 'LE')).toBeUndefined();
  });

  it('a caller address that is not an IP literal matches nothing', () => {
    const t = tables([row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${BROKER}`, '01', 1001)]);
    expect(
      peerUid(t, { ...v4Connection, remote: { address: 'localhost', port: 51234 } }, 'LE'),
    ).toBeUndefined();
  });
});

describe('linesNamingPort: the cut before the parse never loses a row the parser would match', () => {
  const caller = (sep: string, hex = CALLER) =>
    `   1: ${V4_LOOP}:${hex}${sep}${V4_LOOP}:${BROKER} 01 00000000:00000000 00:00000000 00000000  1001        0 1`;

  it.each<[string, string, number | undefined]>([
    ['the kernel form', caller(' '), 1001],
    ['lower-case hex (the parser reads either case)', caller(' ', CALLER.toLowerCase()), 1001],
    ['a tab between the fields', caller('\t'), 1001],
    ['the row last, without a final newline', `${TCP_HEADER}\n${caller(' ')}`, 1001],
    [
      'the port only as a remote end',
      row(1, `${V4_LOOP}:${BROKER}`, `${V4_LOOP}:${CALLER}`, '01', 998),
      undefined,
    ],
  ])('%s', (_name, text, uid) => {
    expect(peerUid({ tcp: text, tcp6: '' }, v4Connection, 'LE')).toBe(uid);
  });

  it('keeps only the lines naming the port, each once', () => {
    const text = table(
      TCP_HEADER,
      row(0, `${V4_LOOP}:${BROKER}`, '00000000:0000', '0A', 998),
      row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${CALLER}`, '01', 1001),
      row(2, `${V4_LOOP}:${CALLER}0`, `${V4_LOOP}:0C822`, '01', 1002),
    );
    expect(linesNamingPort(text, 51234).split('\n')).toEqual([
      row(1, `${V4_LOOP}:${CALLER}`, `${V4_LOOP}:${CALLER}`, '01', 1001),
    ]);
    expect(linesNamingPort(text, 1.5)).toBe('');
    expect(linesNamingPort(text, 70_000)).toBe('');
  });

  // A seeded generator: the same 2000 tables on every run.
  function randomTables(): string[] {
    let seed = 27;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      // The high bits: an LCG's low bits repeat with a short period.
      return (seed >>> 15) % n;
    };
    // The two ports of the connection drawn most often, beside near misses.
    const ports = [CALLER, CALLER, CALLER.toLowerCase(), BROKER, BROKER, 'C823', '2822', 'C82', 'C8220'];
    const states = ['01', '01', '06', '0A'];
    return Array.from({ length: 2000 }, () => {
      const rows = Array.from({ length: 1 + next(8) }, (_, i) =>
        row(
          i,
          `${V4_LOOP}:${ports[next(ports.length)]}`,
          `${V4_LOOP}:${ports[next(ports.length)]}`,
          states[next(states.length)]!,
          1000 + next(5),
        ),
      );
      return table(TCP_HEADER, ...rows);
    });
  }
  /** The lookup without any cut: every row parsed. */
  const everyRow = (text: string) =>
    parseSocketTable(text, 'LE').find(
      (r) =>
        r.state === 1 &&
        r.localAddress === '127.0.0.1' &&
        r.localPort === 51234 &&
        r.remoteAddress === '127.0.0.1' &&
        r.remotePort === 940,
    )?.uid;
  const disagreements = (lookup: (text: string) => number | undefined) =>
    randomTables().filter((text) => lookup(text) !== everyRow(text)).length;

  it('on 2000 random tables, peerUid equals a parse of every row', () => {
    const tables = randomTables();
    // The tables exercise both outcomes.
    expect(tables.filter((text) => everyRow(text) !== undefined).length).toBeGreaterThan(100);
    expect(disagreements((text) => peerUid({ tcp: text, tcp6: '' }, v4Connection, 'LE'))).toBe(0);
  });

  it("negative control: a cut that looks for the kernel's upper case only is caught", () => {
    const upperOnly = (text: string) =>
      everyRow(
        text
          .split('\n')
          .filter((line) => line.includes(`:${CALLER} `))
          .join('\n'),
      );
    expect(disagreements(upperOnly)).toBeGreaterThan(0);
  });
});

describe('listenerUid: who holds a listening port', () => {
  it.each<[string, SocketTables, string, number | undefined]>([
    [
      'bound to 127.0.0.1 exactly',
      tables([row(0, `${V4_LOOP}:${BROKER}`, '00000000:0000', '0A', 998)]),
      '127.0.0.1',
      998,
    ],
    [
      'bound to 0.0.0.0 (receives 127.0.0.1)',
      tables([row(0, `00000000:${BROKER}`, '00000000:0000', '0A', 1001)]),
      '127.0.0.1',
      1001,
    ],
    [
      'bound to :: dual-stack (receives 127.0.0.1)',
      tables([], [row(0, `${V6_ANY}:${BROKER}`, `${V6_ANY}:0000`, '0A', 1002)]),
      '127.0.0.1',
      1002,
    ],
    [
      'an exact binding wins over a wildcard one',
      tables([
        row(0, `00000000:${BROKER}`, '00000000:0000', '0A', 1001),
        row(1, `${V4_LOOP}:${BROKER}`, '00000000:0000', '0A', 0),
      ]),
      '127.0.0.1',
      0,
    ],
    [
      'nothing listens',
      tables([row(0, `${V4_LOOP}:03AD`, '00000000:0000', '0A', 998)]),
      '127.0.0.1',
      undefined,
    ],
    [
      'an established connection on the port is not a listener',
      tables([row(1, `${V4_LOOP}:${BROKER}`, `${V4_LOOP}:${CALLER}`, '01', 998)]),
      '127.0.0.1',
      undefined,
    ],
    [
      'bound to ::1 only: not the IPv4 loopback',
      tables([], [row(0, `${V6_LOOP}:${BROKER}`, `${V6_ANY}:0000`, '0A', 1002)]),
      '127.0.0.1',
      undefined,
    ],
  ])('%s', (_name, socketTables, address, uid) => {
    expect(listenerUid(socketTables, { address, port: 940 }, 'LE')).toBe(uid);
  });
});

describe('address forms', () => {
  it.each<[string, string | undefined]>([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['2001:db8::', '2001:db8:0:0:0:0:0:0'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['localhost', undefined],
    ['256.0.0.1', undefined],
    ['1::2::3', undefined],
    ['1:2:3', undefined],
  ])('%s → %s', (address, canonical) => {
    expect(canonicalAddress(address)).toBe(canonical);
  });

  it.each<[string, { address: string; port: number } | undefined]>([
    ['0100007F:03AC', { address: '127.0.0.1', port: 940 }],
    [`${V6_LOOP}:C822`, { address: '0:0:0:0:0:0:0:1', port: 51234 }],
    [`${V4_MAPPED}:0050`, { address: '127.0.0.1', port: 80 }],
    ['0100007F', undefined],
    ['0100007:03AC', undefined],
    ['0100007F:3AC', undefined],
  ])('hex endpoint %s', (text, endpoint) => {
    expect(parseHexEndpoint(text, 'LE')).toEqual(endpoint);
  });
});

describe('unprivilegedPortStart', () => {
  it.each<[string, () => string, number | undefined]>([
    ['the default', () => '1024\n', 1024],
    ['lowered to 0 (a container)', () => '0\n', 0],
    ['not a number', () => 'x\n', undefined],
    [
      'unreadable',
      () => {
        throw new Error('EACCES');
      },
      undefined,
    ],
  ])('%s', (_name, content, start) => {
    expect(unprivilegedPortStart(content)).toBe(start);
  });
});
