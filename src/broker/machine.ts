// What the broker asks this machine, behind small functions the start-up wires in: the kernel's
// socket tables, the user database (cached: looked at per connection), and the account's shell.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import type * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { type AccountDb, mergeAccountDb, parseAccountDb } from '../host/accounts.js';
import { type ByteOrder, type Connection, kernelPeerUid, kernelPeerUids } from '../host/proc-net.js';

export const HOST_BYTE_ORDER: ByteOrder = os.endianness();

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function connectionOf(socket: net.Socket): Connection {
  return {
    local: { address: socket.localAddress ?? '', port: socket.localPort ?? 0 },
    remote: { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 },
  };
}

/** The uid at the other end of a loopback connection, from the kernel's socket tables. */
export function socketPeerUid(socket: net.Socket): number | undefined {
  return kernelPeerUid(fs, connectionOf(socket), HOST_BYTE_ORDER);
}

/** socketPeerUid of each of `sockets`, from one read of the kernel's socket tables. */
export function socketPeerUids(sockets: readonly net.Socket[]): Array<number | undefined> {
  return kernelPeerUids(fs, sockets.map(connectionOf), HOST_BYTE_ORDER);
}

/**
 * The directory the broker still loads code from once it is its user — undici loads its HTTP parser
 * from its package at the first upstream request. Found now (as root: resolving as the broker's user
 * would fail in a closed directory and look like "nothing to load"); the returned check, run after the
 * drop, names the first directory on the way this process cannot enter (or that one, unreadable).
 */
export function lazyCodeCheck(): () => { dir: string; at: string } | undefined {
  let dir: string;
  try {
    dir = path.dirname(createRequire(import.meta.url).resolve('undici'));
  } catch {
    return () => undefined; // bundled into the CLI (no package beside it): nothing left to load from disk
  }
  return () => {
    const parts = dir.split(path.sep).filter((p) => p !== '');
    for (let i = 1; i <= parts.length; i++) {
      const at = path.sep + parts.slice(0, i).join(path.sep);
      try {
        fs.accessSync(at, i === parts.length ? fs.constants.R_OK | fs.constants.X_OK : fs.constants.X_OK);
      } catch {
        return { dir, at };
      }
    }
    return undefined;
  };
}

function getent(args: readonly string[]): string {
  try {
    // NSS as the system resolves it (files, LDAP, sssd …); an unknown key exits 2.
    return execFileSync('getent', [...args], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return '';
  }
}

export interface AccountCache {
  /** The database, re-read when /etc/passwd or /etc/group changed or `maxAgeMs` passed. */
  get(): AccountDb;
  /** Looks `uid` up through NSS when the files do not list it (a directory-service account). */
  withUid(uid: number): AccountDb;
}

/**
 * The user database for admission decisions: the files, plus NSS look-ups of the allowed groups and
 * of any uid the files do not know (at most once per `maxAgeMs` each).
 */
export function accountCache(groups: readonly string[], now: () => number, maxAgeMs = 30_000): AccountCache {
  let cached: { accounts: AccountDb; at: number; stamp: string } | undefined;
  const looked = new Map<number, number>();
  const stamp = (): string =>
    ['/etc/passwd', '/etc/group']
      .map((f) => {
        const s = fs.statSync(f, { throwIfNoEntry: false });
        return s === undefined ? '-' : `${s.ino}:${s.mtimeMs}:${s.size}`;
      })
      .join('|');
  const load = (): AccountDb => {
    const files = parseAccountDb(readText('/etc/passwd'), readText('/etc/group'));
    const missing = groups.filter((g) => !files.groups.some((x) => x.name === g));
    if (missing.length === 0) return files;
    return mergeAccountDb(files, parseAccountDb('', getent(['group', ...missing])));
  };
  const get = (): AccountDb => {
    const current = stamp();
    if (cached === undefined || cached.stamp !== current || now() - cached.at > maxAgeMs) {
      cached = { accounts: load(), at: now(), stamp: current };
      looked.clear();
    }
    return cached.accounts;
  };
  return {
    get,
    withUid(uid) {
      const accounts = get();
      if (accounts.users.some((u) => u.uid === uid)) return accounts;
      const last = looked.get(uid);
      if (last !== undefined && now() - last < maxAgeMs) return accounts;
      looked.set(uid, now());
      const found = parseAccountDb(getent(['passwd', String(uid)]), '');
      if (found.users.length === 0) return accounts;
      const merged = mergeAccountDb(accounts, found);
      if (cached !== undefined) cached.accounts = merged;
      return merged;
    },
  };
}

/** The login shell of `name` (passwd field 7), from the files or NSS. */
export function shellOf(name: string): string | undefined {
  const line =
    readText('/etc/passwd')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`)) ?? getent(['passwd', name]).split('\n')[0];
  const shell = line?.split(':')[6]?.trim();
  return shell === undefined || shell === '' ? undefined : shell;
}
