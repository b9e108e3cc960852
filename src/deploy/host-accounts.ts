// I/O for src/host/accounts.ts: this machine's user database and the stats of a file's path, for
// verify's host.credentials check and `qwen-managed status`.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type AccountDb, mergeAccountDb, type PathStat, parseAccountDb } from '../host/accounts.js';

function getent(args: readonly string[]): string | undefined {
  try {
    // NSS as the system resolves it (files, LDAP, sssd …); a name it does not know exits 2.
    return execFileSync('getent', [...args], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The accounts and groups of this machine: the enumeration (`getent`, else /etc/passwd and
 * /etc/group), plus a look-up of each of `users` and `groups` it did not list (a directory service
 * may not enumerate).
 */
export function readAccountDb(users: readonly string[] = [], groups: readonly string[] = []): AccountDb {
  const passwd = getent(['passwd']) ?? readText('/etc/passwd');
  const group = getent(['group']) ?? readText('/etc/group');
  let db = parseAccountDb(passwd, group);
  const missingUsers = users.filter((u) => !db.users.some((x) => x.name === u));
  const missingGroups = groups.filter((g) => !db.groups.some((x) => x.name === g));
  if (missingUsers.length > 0 || missingGroups.length > 0) {
    const more = parseAccountDb(
      missingUsers.length === 0 ? '' : (getent(['passwd', ...missingUsers]) ?? ''),
      missingGroups.length === 0 ? '' : (getent(['group', ...missingGroups]) ?? ''),
    );
    db = mergeAccountDb(db, more);
  }
  return db;
}

/** The stats of `/`, every directory down to the file, and the file, along its real path; null when absent. */
export function pathChain(file: string): PathStat[] | null {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    return null;
  }
  const chain: PathStat[] = [];
  const parts = real.split(path.sep).filter((p) => p !== '');
  for (let i = 0; i <= parts.length; i++) {
    const at = `/${parts.slice(0, i).join('/')}`;
    const stat = fs.statSync(at, { throwIfNoEntry: false });
    if (stat === undefined) return null;
    chain.push({
      path: at,
      uid: stat.uid,
      gid: stat.gid,
      mode: stat.mode & 0o7777,
      directory: stat.isDirectory(),
    });
  }
  return chain;
}
