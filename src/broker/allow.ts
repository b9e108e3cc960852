// Who may use the broker: deployment.json `broker.allow` (users and groups, by name), judged for the
// uid the kernel reports at the other end of a connection, against the host's user database. Root is
// always let in (it can read every credential anyway; `qwen-managed probe` runs as root). Pure.
import { type AccountDb, findGroup, principalOf } from '../host/accounts.js';

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
export function admit(uid: number, allow: AllowList, accounts: AccountDb): Admission {
  const account = accounts.users.find((u) => u.uid === uid);
  const user = account?.name ?? null;
  if (uid === 0) return { allowed: true, user: user ?? 'root', via: 'root' };
  if (account === undefined) return { allowed: false, user };
  if (allow.users.includes(account.name)) return { allowed: true, user, via: 'user' };
  const { gids } = principalOf(accounts, account);
  for (const name of allow.groups) {
    const group = findGroup(accounts, name);
    if (group !== undefined && gids.has(group.gid)) return { allowed: true, user, via: 'group' };
  }
  return { allowed: false, user };
}
