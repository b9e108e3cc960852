// Who may use the broker: deployment.json `broker.allow` (users and groups, by name), judged for the
// uid the kernel reports at the other end of a connection, against the host's user database. Root is
// always let in (it can read every credential anyway; `qwen-managed probe` runs as root). Pure.

export interface AccountEntry {
  name: string;
  uid: number;
  /** Primary group. */
  gid: number;
}

export interface GroupEntry {
  name: string;
  gid: number;
  /** Supplementary members, by account name. */
  members: readonly string[];
}

export interface Accounts {
  users: readonly AccountEntry[];
  groups: readonly GroupEntry[];
}

export interface AllowList {
  users: readonly string[];
  groups: readonly string[];
}

export type Admission =
  | { allowed: true; user: string | null; via: 'root' | 'user' | 'group' }
  | { allowed: false; user: string | null };

/**
 * Whether `uid` may use the broker: root; an account named in `users`; or an account whose primary
 * group or supplementary groups include one named in `groups`. A uid the database does not know is
 * refused (its groups cannot be known either).
 */
export function admit(uid: number, allow: AllowList, accounts: Accounts): Admission {
  const account = accounts.users.find((u) => u.uid === uid);
  const user = account?.name ?? null;
  if (uid === 0) return { allowed: true, user: user ?? 'root', via: 'root' };
  if (account === undefined) return { allowed: false, user };
  if (allow.users.includes(account.name)) return { allowed: true, user, via: 'user' };
  for (const name of allow.groups) {
    const group = accounts.groups.find((g) => g.name === name);
    if (group === undefined) continue;
    if (account.gid === group.gid || group.members.includes(account.name))
      return { allowed: true, user, via: 'group' };
  }
  return { allowed: false, user };
}

/** One line per entry, `:`-separated, as passwd(5) and group(5) write them; malformed lines skipped. */
export function parseAccounts(passwd: string, group: string): Accounts {
  const users: AccountEntry[] = [];
  for (const line of passwd.split('\n')) {
    const [name, , uid, gid] = line.split(':');
    if (name === undefined || name === '' || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) continue;
    users.push({ name, uid: Number(uid), gid: Number(gid) });
  }
  const groups: GroupEntry[] = [];
  for (const line of group.split('\n')) {
    const [name, , gid, members] = line.split(':');
    if (name === undefined || name === '' || !/^\d+$/.test(gid ?? '')) continue;
    groups.push({ name, gid: Number(gid), members: (members ?? '').split(',').filter((m) => m !== '') });
  }
  return { users, groups };
}
