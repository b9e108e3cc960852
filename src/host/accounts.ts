// Who can read a file, judged from owners and permission bits (POSIX): the user database as the host
// reports it (`getent passwd` / `getent group`, else /etc/passwd and /etc/group), and the stat of the
// file and of every directory above it. Pure: the I/O layer gathers the text and the stats. POSIX ACLs
// are not read (the group bits are then the ACL mask); access(2) at launch stays the final word.

export interface Account {
  name: string;
  uid: number;
  /** Primary group. */
  gid: number;
  /** The passwd home (the launcher's HOME and QWEN_HOME come from it). */
  home?: string;
}

export interface Group {
  name: string;
  gid: number;
  /** Supplementary members, by account name. */
  members: readonly string[];
}

export interface AccountDb {
  users: readonly Account[];
  groups: readonly Group[];
}

/** One line per entry, `:`-separated, as passwd(5) and group(5) write it. Malformed lines are skipped. */
export function parseAccountDb(passwd: string, group: string): AccountDb {
  const users: Account[] = [];
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid, , home] = line.split(':');
    if (name === undefined || name === '' || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) continue;
    users.push({ name, uid: Number(uid), gid: Number(gid), ...(home ? { home } : {}) });
  }
  const groups: Group[] = [];
  for (const line of group.split('\n')) {
    const [name, , gid, members] = line.split(':');
    if (name === undefined || name === '' || !/^\d+$/.test(gid ?? '')) continue;
    groups.push({
      name,
      gid: Number(gid),
      members: (members ?? '').split(',').filter((m) => m !== ''),
    });
  }
  return { users, groups };
}

/** Two databases merged, the first's entries winning (enumeration first, then single look-ups). */
export function mergeAccountDb(a: AccountDb, b: AccountDb): AccountDb {
  const users = [...a.users, ...b.users.filter((u) => !a.users.some((x) => x.name === u.name))];
  const groups = [...a.groups, ...b.groups.filter((g) => !a.groups.some((x) => x.name === g.name))];
  return { users, groups };
}

export function findUser(db: AccountDb, name: string): Account | undefined {
  return db.users.find((u) => u.name === name);
}

export function findGroup(db: AccountDb, name: string): Group | undefined {
  return db.groups.find((g) => g.name === name);
}

/** The identity the kernel checks: a uid and every group it belongs to. */
export interface Principal {
  uid: number;
  gids: ReadonlySet<number>;
}

export function principalOf(db: AccountDb, account: Account): Principal {
  const gids = new Set<number>([account.gid]);
  for (const g of db.groups) if (g.members.includes(account.name)) gids.add(g.gid);
  return { uid: account.uid, gids };
}

export interface PathStat {
  path: string;
  uid: number;
  gid: number;
  /** Permission bits. */
  mode: number;
  directory: boolean;
}

const READ = 4;
const SEARCH = 1;

/** The permission triplet that applies to `who` (owner, else group, else other: the first class that matches). */
function allowed(who: Principal, stat: PathStat, bit: number): boolean {
  if (who.uid === 0) return true;
  const shift = who.uid === stat.uid ? 6 : who.gids.has(stat.gid) ? 3 : 0;
  return ((stat.mode >> shift) & bit) !== 0;
}

/**
 * Whether `who` can read the last entry of `chain` (the directories from `/` down, then the file):
 * search permission on every directory, read on the file. Returns the first entry that stops it.
 */
export function readBlocker(who: Principal, chain: readonly PathStat[]): PathStat | undefined {
  const file = chain.at(-1);
  if (file === undefined) return undefined;
  for (const dir of chain.slice(0, -1)) if (!allowed(who, dir, SEARCH)) return dir;
  return allowed(who, file, READ) ? undefined : file;
}

/** Anyone at all — an account the database does not list included — can read through the "other" bits. */
export function readableByEveryone(chain: readonly PathStat[]): boolean {
  const file = chain.at(-1);
  if (file === undefined) return false;
  return chain.slice(0, -1).every((d) => (d.mode & SEARCH) !== 0) && (file.mode & READ) !== 0;
}

/** The accounts of the database (root excepted) that can read the file. */
export function readersOf(db: AccountDb, chain: readonly PathStat[]): Account[] {
  return db.users.filter((u) => u.uid !== 0 && readBlocker(principalOf(db, u), chain) === undefined);
}
