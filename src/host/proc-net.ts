// Who owns a loopback TCP socket, read from the kernel's socket tables (Linux `/proc/net/tcp` and
// `/proc/net/tcp6`): the credential broker asks it for the uid at the other end of each connection,
// the launcher and verify for the uid that holds the broker's listening port. Nothing the caller
// sends is believed: the kernel wrote these rows. Pure, or over an injected fs for the readers that
// stop at the rows they need.
//
// A row is `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …`. Addresses are
// hex: IPv4 is one 32-bit word, IPv6 four, each printed in the host's byte order; the port is printed
// in network order. `st` is the TCP state (01 ESTABLISHED, 0A LISTEN).

import type { ChunkReadFs } from '../base/hash.js';

export type ByteOrder = 'LE' | 'BE';

/** Where Linux prints its TCP socket tables. */
export const SOCKET_TABLE_FILES = { tcp: '/proc/net/tcp', tcp6: '/proc/net/tcp6' } as const;

/**
 * The first port an unprivileged process may bind (Linux: 1024 unless an administrator lowered it),
 * read through `readFile`; undefined when it cannot be read or parsed.
 */
export function unprivilegedPortStart(readFile: (file: string) => Uint8Array | string): number | undefined {
  let text: string;
  try {
    const content = readFile('/proc/sys/net/ipv4/ip_unprivileged_port_start');
    text = typeof content === 'string' ? content : new TextDecoder().decode(content);
  } catch {
    return undefined;
  }
  const start = Number.parseInt(text, 10);
  return Number.isFinite(start) ? start : undefined;
}

export const TCP_STATE = { established: 0x01, listen: 0x0a } as const;

export interface SocketRow {
  /** Canonical address: dotted IPv4 (an IPv4-mapped IPv6 address included), else 8 groups of hex. */
  localAddress: string;
  localPort: number;
  remoteAddress: string;
  remotePort: number;
  state: number;
  uid: number;
}

export interface SocketTables {
  /** The text of /proc/net/tcp (empty when unreadable). */
  tcp: string;
  /** The text of /proc/net/tcp6 (empty when the kernel has no IPv6). */
  tcp6: string;
}

export interface Endpoint {
  address: string;
  port: number;
}

const HEX_WORD = /^[0-9A-Fa-f]{8}$/;

/** One 32-bit word as the kernel printed it → its four bytes in memory (network) order. */
function wordBytes(hex: string, order: ByteOrder): number[] {
  const bytes = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return order === 'LE' ? bytes.reverse() : bytes;
}

/** 16 bytes → the canonical form: dotted IPv4 for an IPv4-mapped address, else 8 lower-case groups. */
function canonicalV6(bytes: readonly number[]): string {
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}

/** `0100007F:1F90` → 127.0.0.1 port 8080 (on a little-endian host); undefined when malformed. */
export function parseHexEndpoint(text: string, order: ByteOrder): Endpoint | undefined {
  const colon = text.indexOf(':');
  const address = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (colon === -1 || !/^[0-9A-Fa-f]{4}$/.test(port)) return undefined;
  if (address.length === 8 && HEX_WORD.test(address)) {
    return { address: wordBytes(address, order).join('.'), port: Number.parseInt(port, 16) };
  }
  if (address.length === 32 && /^[0-9A-Fa-f]{32}$/.test(address)) {
    const bytes: number[] = [];
    for (let i = 0; i < 32; i += 8) bytes.push(...wordBytes(address.slice(i, i + 8), order));
    return { address: canonicalV6(bytes), port: Number.parseInt(port, 16) };
  }
  return undefined;
}

/**
 * An address as Node reports it (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`, `fe80::1%eth0`) in the same
 * canonical form as the table's; undefined when it is not an IP literal.
 */
export function canonicalAddress(address: string): string | undefined {
  const plain = address.split('%', 1)[0]!;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(plain)) {
    const parts = plain.split('.').map(Number);
    return parts.every((p) => p <= 255) ? parts.join('.') : undefined;
  }
  if (!plain.includes(':')) return undefined;
  // A trailing dotted IPv4 part (`::ffff:127.0.0.1`) stands for the last two groups.
  let text = plain;
  const dotted = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted !== null) {
    const v4 = dotted[1]!.split('.').map(Number);
    if (v4.some((p) => p > 255)) return undefined;
    text = `${text.slice(0, dotted.index)}:${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] === '' ? [] : halves[0]!.split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? halves[1]!.split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.length !== 8 || !groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return undefined;
  const bytes = groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
  return canonicalV6(bytes);
}

/** Every well-formed row of one table (the header line and malformed lines are skipped). */
export function parseSocketTable(text: string, order: ByteOrder): SocketRow[] {
  const rows: SocketRow[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    // sl, local, remote, st, tx:rx, tr:when, retrnsmt, uid …
    if (fields.length < 8 || !fields[0]!.endsWith(':')) continue;
    const local = parseHexEndpoint(fields[1]!, order);
    const remote = parseHexEndpoint(fields[2]!, order);
    const state = /^[0-9A-Fa-f]{2}$/.test(fields[3]!) ? Number.parseInt(fields[3]!, 16) : Number.NaN;
    const uid = /^\d+$/.test(fields[7]!) ? Number(fields[7]) : Number.NaN;
    if (local === undefined || remote === undefined || Number.isNaN(state) || Number.isNaN(uid)) continue;
    rows.push({
      localAddress: local.address,
      localPort: local.port,
      remoteAddress: remote.address,
      remotePort: remote.port,
      state,
      uid,
    });
  }
  return rows;
}

function rowsOf(tables: SocketTables, order: ByteOrder): SocketRow[] {
  return [...parseSocketTable(tables.tcp, order), ...parseSocketTable(tables.tcp6, order)];
}

export interface Connection {
  /** The server's end (`socket.localAddress` / `localPort` of an accepted socket). */
  local: Endpoint;
  /** The caller's end (`socket.remoteAddress` / `remotePort`). */
  remote: Endpoint;
}

/**
 * The lines of `text` that name `port` as an endpoint (`:PPPP` and a blank, in either case): every
 * row the parser could read with that port, and usually no other. The broker's lookup runs once per
 * connection over a table that holds every socket of the machine (thousands on a busy host, most of
 * them TIME_WAIT); one search of the text then replaces thousands of row parses.
 */
export function linesNamingPort(text: string, port: number): string {
  // The parser reads a port as exactly four hex digits: no other number names one.
  if (!Number.isInteger(port) || port < 0 || port > 0xffff) return '';
  const named = new RegExp(`:${port.toString(16).padStart(4, '0')}\\s`, 'gi');
  const lines: string[] = [];
  for (let match = named.exec(text); match !== null; match = named.exec(text)) {
    const start = text.lastIndexOf('\n', match.index) + 1;
    const end = text.indexOf('\n', match.index);
    const after = end === -1 ? text.length : end;
    lines.push(text.slice(start, after));
    // The next search starts on the next line: each line is kept once.
    named.lastIndex = after;
  }
  return lines.join('\n');
}

/**
 * The uid of the process that opened the caller's end of an accepted loopback connection: the
 * ESTABLISHED row whose local end is the caller's and whose remote end is ours. Undefined when there
 * is no such row (the caller already closed, or the connection does not come from this host's
 * network namespace). Only ESTABLISHED counts: a TIME_WAIT or orphaned row reports uid 0, which must
 * never pass for root. `tables` may hold any run of whole lines of the tables (the broker reads them
 * in pieces and stops at the first match).
 */
export function peerUid(tables: SocketTables, connection: Connection, order: ByteOrder): number | undefined {
  const callerAddress = canonicalAddress(connection.remote.address);
  const ourAddress = canonicalAddress(connection.local.address);
  if (callerAddress === undefined || ourAddress === undefined) return undefined;
  // Only rows naming the caller's port can match: the rest are never parsed.
  const port = connection.remote.port;
  const named = { tcp: linesNamingPort(tables.tcp, port), tcp6: linesNamingPort(tables.tcp6, port) };
  const row = rowsOf(named, order).find(
    (r) =>
      r.state === TCP_STATE.established &&
      r.localAddress === callerAddress &&
      r.localPort === connection.remote.port &&
      r.remoteAddress === ourAddress &&
      r.remotePort === connection.local.port,
  );
  return row?.uid;
}

/**
 * A search for the caller rows of `connections`: each call fills `uids` (by connection) from the
 * rows of `text`, the answer peerUid gives. A row is parsed only when its first four-digit hex
 * number — its local port — is a caller's, so a search costs one scan of the text whatever their
 * number; the connections are prepared once for every piece of a table.
 */
function callerRowSearch(
  connections: readonly Connection[],
  order: ByteOrder,
): (text: string, uids: Array<number | undefined>) => void {
  // The caller's end and ours, canonical, by the caller's port: what a matching row's ends are.
  const wanted = new Map<number, Array<{ at: number; caller: string; ours: string; ourPort: number }>>();
  connections.forEach((c, at) => {
    const caller = canonicalAddress(c.remote.address);
    const ours = canonicalAddress(c.local.address);
    if (caller === undefined || ours === undefined) return;
    const list = wanted.get(c.remote.port) ?? [];
    list.push({ at, caller, ours, ourPort: c.local.port });
    wanted.set(c.remote.port, list);
  });
  return (text, uids) => {
    if (wanted.size === 0) return;
    // Every `:PPPP` and a blank (the only way the parser reads a port), in either case.
    const port = /:([0-9A-Fa-f]{4})\s/g;
    for (let match = port.exec(text); match !== null; match = port.exec(text)) {
      const start = text.lastIndexOf('\n', match.index) + 1;
      const end = text.indexOf('\n', match.index);
      const after = end === -1 ? text.length : end;
      // Each line once: the next search starts on the next line.
      port.lastIndex = after;
      // A row's first such number is its local port (the `sl:` before it is no port): the caller's.
      const candidates = wanted.get(Number.parseInt(match[1]!, 16));
      if (candidates === undefined) continue;
      const row = parseSocketTable(text.slice(start, after), order)[0];
      if (row === undefined || row.state !== TCP_STATE.established) continue;
      for (const w of candidates) {
        if (
          uids[w.at] === undefined &&
          row.localAddress === w.caller &&
          row.localPort === connections[w.at]!.remote.port &&
          row.remoteAddress === w.ours &&
          row.remotePort === w.ourPort
        )
          uids[w.at] = row.uid;
      }
    }
  };
}

/** peerUid for several connections at once, over one scan of the tables. */
export function peerUids(
  tables: SocketTables,
  connections: readonly Connection[],
  order: ByteOrder,
): Array<number | undefined> {
  const uids = connections.map((): number | undefined => undefined);
  callerRowSearch(connections, order)(`${tables.tcp}\n${tables.tcp6}`, uids);
  return uids;
}

/**
 * The uid holding a listening socket on `endpoint`: a LISTEN row bound to exactly that address or to
 * the wildcard address of its family (`0.0.0.0`, `::`), which also receives its connections.
 * Undefined when nothing listens there.
 */
export function listenerUid(tables: SocketTables, endpoint: Endpoint, order: ByteOrder): number | undefined {
  const address = canonicalAddress(endpoint.address);
  if (address === undefined) return undefined;
  const v4 = !address.includes(':');
  const wildcards = v4 ? ['0.0.0.0', '0:0:0:0:0:0:0:0'] : ['0:0:0:0:0:0:0:0'];
  const rows = rowsOf(tables, order).filter(
    (r) => r.state === TCP_STATE.listen && r.localPort === endpoint.port,
  );
  // An exact binding first: on Linux it takes the connection over a wildcard one.
  const row =
    rows.find((r) => r.localAddress === address) ?? rows.find((r) => wildcards.includes(r.localAddress));
  return row?.uid;
}

/** Large enough for any one read: the kernel hands out its socket tables a page at a time. */
const TABLE_READ_BYTES = 64 * 1024;

/**
 * The first answer `judge` finds in a kernel table, given whole lines a read at a time. A lookup
 * stops at its rows: it never pays for the rows after them, nor for the read at the end of the
 * table, which walks the kernel's whole connection hash again (~0.6 ms on a 2-core VM, whatever the
 * row count). Undefined when the table cannot be read or `judge` finds nothing.
 */
export function firstInTable<T>(
  fs: ChunkReadFs,
  file: string,
  judge: (lines: string) => T | undefined,
  readBytes = TABLE_READ_BYTES,
): T | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.allocUnsafe(readBytes);
    let carry = '';
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, readBytes, null);
      if (read === 0) return carry === '' ? undefined : judge(carry);
      // The tables are ASCII: one byte, one character, so a read may end anywhere.
      const text = carry + buffer.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n') + 1;
      carry = text.slice(end);
      const found = end === 0 ? undefined : judge(text.slice(0, end));
      if (found !== undefined) return found;
    }
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** A table's whole text, or empty when it cannot be read. */
function wholeTable(fs: ChunkReadFs, file: string): string {
  let text = '';
  firstInTable(fs, file, (lines) => {
    text += lines;
    return undefined;
  });
  return text;
}

/**
 * peerUids over the kernel's tables, read once for all `connections` and only as far as the last of
 * their rows; tcp6 only for those tcp does not answer. The broker looks up every connection accepted
 * together at once: a read of the tables grows with every socket on the host, so one read per
 * connection made a flood of connections cost a read each (measured: 19 000 in a minute delayed
 * another user's request by up to 18 s).
 */
export function kernelPeerUids(
  fs: ChunkReadFs,
  connections: readonly Connection[],
  order: ByteOrder,
): Array<number | undefined> {
  const uids = connections.map((): number | undefined => undefined);
  // Rows of either table parse alike (the address length tells IPv4 from IPv6).
  const search = callerRowSearch(connections, order);
  const all = () => uids.every((uid) => uid !== undefined);
  for (const file of [SOCKET_TABLE_FILES.tcp, SOCKET_TABLE_FILES.tcp6]) {
    if (all()) break;
    firstInTable(fs, file, (lines) => {
      search(lines, uids);
      return all() ? true : undefined;
    });
  }
  return uids;
}

/** peerUid over the kernel's tables, read only as far as the caller's row; IPv6 only when needed. */
export function kernelPeerUid(fs: ChunkReadFs, connection: Connection, order: ByteOrder): number | undefined {
  // Rows of either table parse alike (the address length tells IPv4 from IPv6).
  const judge = (lines: string) => peerUid({ tcp: lines, tcp6: '' }, connection, order);
  return firstInTable(fs, SOCKET_TABLE_FILES.tcp, judge) ?? firstInTable(fs, SOCKET_TABLE_FILES.tcp6, judge);
}

/**
 * As much of the kernel's tables as listenerUid needs for `endpoints`: when /proc/net/tcp has, for
 * each, a LISTEN row bound to exactly its IPv4 address, the lines up to the last of them (an exact
 * binding decides, so no wildcard row elsewhere can change the answer; LISTEN rows come first, so
 * this is usually the first page); otherwise both tables whole.
 */
export function listenerTables(
  fs: ChunkReadFs,
  endpoints: readonly Endpoint[],
  order: ByteOrder,
): SocketTables {
  const wanted = endpoints.map((e) => ({ address: canonicalAddress(e.address), port: e.port }));
  // An IPv6 listener's exact row is in tcp6: no stop in tcp can decide it.
  const mayStop = wanted.every((w) => w.address !== undefined && !w.address.includes(':'));
  let tcp = '';
  const found = new Set<number>();
  const complete = firstInTable(fs, SOCKET_TABLE_FILES.tcp, (lines) => {
    tcp += lines;
    if (!mayStop) return undefined;
    for (const row of parseSocketTable(lines, order)) {
      if (row.state !== TCP_STATE.listen) continue;
      wanted.forEach((w, i) => {
        if (row.localPort === w.port && row.localAddress === w.address) found.add(i);
      });
    }
    return found.size === wanted.length ? true : undefined;
  });
  if (complete) return { tcp, tcp6: '' };
  // Not decided by tcp's exact rows: tcp was read whole on the way, tcp6 is read whole too.
  return { tcp, tcp6: wholeTable(fs, SOCKET_TABLE_FILES.tcp6) };
}
