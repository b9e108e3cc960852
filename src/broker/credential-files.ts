// Who can read, or put something else in place of, a credential file the broker holds: with a broker
// no developer it serves may read one (that is the whole point of it) nor choose what it reads. One
// judgement over the walk of src/host/file-chain.ts, for the broker's start (which refuses) and for
// verify's broker.credentials (which reports). Pure.
import {
  type Account,
  type AccountDb,
  type PathStat,
  principalOf,
  readableByEveryone,
  readersOf,
} from '../host/accounts.js';
import type { FileChain } from '../host/file-chain.js';
import { STICKY } from '../host/strict-modes.js';
import { octalMode, posixQuote, show } from '../policy/quote.js';
import { type AllowList, admit } from './allow.js';

export interface CredentialFileJudgement {
  /** The broker refuses to start; verify fails broker.credentials. */
  errors: string[];
  /** Readers who are not allowed to use the broker: only root needs to read it (verify warns). */
  warnings: string[];
}

const WRITE = 2;
const SEARCH = 1;

function names(accounts: readonly Account[]): string {
  const shown = accounts.slice(0, 3).map((u) => u.name);
  return `${shown.join(', ')}${accounts.length > 3 ? ` and ${accounts.length - 3} more` : ''}`;
}

function describe(stat: PathStat, db: AccountDb): string {
  const owner = db.users.find((u) => u.uid === stat.uid)?.name ?? `uid ${stat.uid}`;
  return `${show(stat.path)} (${stat.directory ? 'directory' : 'file'}, mode ${octalMode(stat.mode)}, owner ${owner})`;
}

/** The permission class of `stat` that applies to `account` has `bit`. */
function may(db: AccountDb, account: Account, stat: PathStat, bit: number): boolean {
  const who = principalOf(db, account);
  const shift = who.uid === stat.uid ? 6 : who.gids.has(stat.gid) ? 3 : 0;
  return ((stat.mode >> shift) & bit) !== 0;
}

/**
 * The first entry through which `account` could put another file (or a link) where the broker reads:
 * one it owns (it can change the modes), or a directory a name is looked up in that it may write
 * (a sticky directory protects the entries it does not own, which the owner rule covers).
 */
function replaceVia(
  db: AccountDb,
  account: Account,
  entries: readonly PathStat[],
  looked: readonly PathStat[],
): PathStat | undefined {
  const owned = entries.find((e) => e.uid === account.uid);
  if (owned !== undefined) return owned;
  return looked.find(
    (d) => (d.mode & STICKY) === 0 && may(db, account, d, WRITE) && may(db, account, d, SEARCH),
  );
}

export function judgeCredentialFile(
  name: string,
  file: string,
  walk: FileChain,
  db: AccountDb,
  broker: { user: string; allow: AllowList; adminUid: number },
): CredentialFileJudgement {
  const label = `credential file of ${name} ${show(file)}`;
  const fix = `chown root:root ${posixQuote(file)} && chmod 0600 ${posixQuote(file)}`;
  const allowed = db.users.filter((u) => u.uid !== 0 && admit(u.uid, broker.allow, db).allowed);
  if (walk.kind === 'missing')
    return { errors: [`${label} does not exist; the broker refuses to start without it`], warnings: [] };
  if (walk.kind === 'hidden') {
    // The broker's own user (under systemd) may not see the file: the directories it did see must
    // then keep every allowed developer out, or it cannot tell who reads the secret it holds.
    const through = allowed.filter(
      (u) => walk.chain.some((d) => d.uid === u.uid) || walk.chain.every((d) => may(db, u, d, SEARCH)),
    );
    if (through.length === 0) return { errors: [], warnings: [] };
    const last = walk.chain.at(-1);
    return {
      errors: [
        `${label} cannot be judged: the broker cannot look past ${last === undefined ? '/' : show(last.path)} (${walk.code}), which ${names(through)}, allowed to use the broker, can enter; fix: keep credential files in a directory only root can enter (chown root:root DIR && chmod 0700 DIR), or run verify as root to see who reads it`,
      ],
      warnings: [],
    };
  }
  const { chain, looked, links } = walk;
  const errors: string[] = [];
  if (readableByEveryone(chain))
    return {
      errors: [`${label} is readable by every user: the broker protects nothing; fix: ${fix}`],
      warnings: [],
    };
  const readers = readersOf(db, chain).filter((u) => u.uid !== broker.adminUid);
  const readingDevelopers = readers.filter((u) => allowed.includes(u));
  if (readingDevelopers.length > 0)
    errors.push(
      `${label} can be read by ${names(readingDevelopers)}, allowed to use the broker: with a broker no developer may read it; fix: ${fix}`,
    );
  // Whoever can swap the file (or a directory or link on its way) chooses what the broker reads —
  // and, owning the new entry, can read what the broker was meant to hold alone.
  const entries = [...chain, ...links];
  for (const account of allowed.filter((u) => !readingDevelopers.includes(u))) {
    const via = replaceVia(db, account, entries, looked);
    if (via === undefined) continue;
    errors.push(
      `${label} can be replaced by ${account.name}, allowed to use the broker: ${describe(via, db)} ${via.uid === account.uid ? 'is theirs' : 'is writable by them'}; fix: chown root:root ${posixQuote(via.path)} && chmod go-w ${posixQuote(via.path)}`,
    );
    break;
  }
  const others = readers.filter((u) => !allowed.includes(u) && u.name !== broker.user);
  const warnings =
    others.length > 0
      ? [
          `${label} can also be read by ${names(others)}; only root needs to (the broker reads it before dropping privileges, systemd's LoadCredential as root)`,
        ]
      : [];
  return { errors, warnings };
}
