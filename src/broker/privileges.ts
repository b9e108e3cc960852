// Started as root, the broker binds its ports and reads the credentials, then becomes its own user
// for good: groups first (only root may set them), then the group, then the user — setuid(2) as root
// changes the real, effective and saved ids, so there is no way back. Checked afterwards, not assumed.
import type { Account } from '../host/accounts.js';
import { BrokerStartError } from './load.js';

export interface IdentityOps {
  getuid(): number;
  geteuid(): number;
  getgid(): number;
  getegid(): number;
  getgroups(): number[];
  setgroups(groups: number[]): void;
  setgid(gid: number): void;
  setuid(uid: number): void;
}

/** How the broker was started: as root (it drops to `account`), or already as `account` (systemd User=). */
export function startMode(ids: IdentityOps, account: Account): 'drop' | 'already' {
  const uid = ids.getuid();
  if (uid === 0) return 'drop';
  if (uid === account.uid && ids.geteuid() === account.uid) return 'already';
  throw new BrokerStartError([
    `started as uid ${uid}: start the broker as root (it binds its ports, then becomes ${account.name}) or as ${account.name} itself (systemd's User=, with CAP_NET_BIND_SERVICE for ports below 1024)`,
  ]);
}

export function dropPrivileges(ids: IdentityOps, account: Account): void {
  ids.setgroups([account.gid]);
  ids.setgid(account.gid);
  ids.setuid(account.uid);
  const groups = ids.getgroups();
  const dropped =
    ids.getuid() === account.uid &&
    ids.geteuid() === account.uid &&
    ids.getgid() === account.gid &&
    ids.getegid() === account.gid &&
    groups.every((g) => g === account.gid);
  // Refuse to serve rather than serve as root by mistake.
  if (!dropped)
    throw new BrokerStartError([`could not become ${account.name} (uid ${account.uid}); not serving`]);
}
