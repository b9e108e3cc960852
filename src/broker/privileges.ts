// Started as root, the broker binds its ports and reads the credentials, then becomes its own user
// for good: groups first (only root may set them), then the group, then the user — setuid(2) as root
// changes the real, effective and saved ids, so there is no way back. Checked afterwards, not assumed.
import type { Account } from '../host/accounts.js';
import type { ProcessIds } from '../host/process-ids.js';
import { show } from '../policy/quote.js';
import { BrokerStartError } from './load.js';

/** What the drop needs of the process's ids. */
export type IdentityOps = Pick<
  ProcessIds,
  'getuid' | 'geteuid' | 'getgid' | 'getegid' | 'getgroups' | 'setgroups' | 'setgid' | 'setuid'
>;

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

/** The refusal when the broker, as its user, cannot read code it has yet to load (see lazyCodeCheck). */
export function lazyCodeProblem(account: Account, blocked: { dir: string; at: string }): string {
  const where =
    blocked.at === blocked.dir
      ? `${show(blocked.dir)} is not readable`
      : `${show(blocked.at)} is closed to it (a root-only directory, such as /root, on the way)`;
  return `as ${account.name} the broker cannot read ${show(blocked.dir)}, where its HTTP client loads its parser at the first upstream request (every request would fail 502): ${where}; run the broker from a toolkit ${account.name} can read (the Debian package's, or an install outside root-only directories)`;
}
