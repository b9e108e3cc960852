// host.credentials: every credential file the plans pin is readable by the developers the deployment
// is for (deployment.json `developers`, carried into each launch.json) and by no one else. Without
// `developers`, a file only root can read is a warning: every launch by a developer would fail.
// Pure over the facts the I/O layer gathered (src/host/accounts.ts has the rules of who reads what).

import {
  type AccountDb,
  findGroup,
  findUser,
  type PathStat,
  principalOf,
  readableByEveryone,
  readBlocker,
  readersOf,
} from '../../../host/accounts.js';
import { posixQuote, show } from '../../../policy/quote.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';

export interface CredentialAccessFacts {
  db: AccountDb;
  /** Credential file → the stats of `/`, every directory below it, then the file (its real path); null: absent. */
  chains: ReadonlyMap<string, readonly PathStat[] | null>;
}

export interface Developers {
  users: readonly string[];
  groups: readonly string[];
}

/** The `developers` of the plans (render writes the same block into every profile's launch.json). */
export function developersOf(view: TreeView): Developers | undefined {
  return view.profiles.find((p) => p.plan?.developers !== undefined)?.plan?.developers;
}

/** Credential file → the variables it holds, over every profile's plan. */
export function credentialFiles(view: TreeView): Map<string, string[]> {
  const files = new Map<string, Set<string>>();
  for (const p of view.profiles) {
    for (const [name, source] of Object.entries(p.plan?.credentials ?? {})) {
      if ('file' in source) files.set(source.file, (files.get(source.file) ?? new Set()).add(name));
    }
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => [f, [...n].sort()]));
}

const mode = (stat: PathStat) => stat.mode.toString(8).padStart(4, '0');

function describe(stat: PathStat, db: AccountDb): string {
  const owner = db.users.find((u) => u.uid === stat.uid)?.name ?? `uid ${stat.uid}`;
  const group = db.groups.find((g) => g.gid === stat.gid)?.name ?? `gid ${stat.gid}`;
  return `${show(stat.path)} (${stat.directory ? 'directory' : 'file'}, mode ${mode(stat)}, ${owner}:${group})`;
}

/** The fix for an entry that stops a developer: a directory needs its search bit, the file its group. */
function blockerFix(blocker: PathStat, developers: Developers | undefined): string {
  if (blocker.directory)
    return `chmod a+x ${posixQuote(blocker.path)} (search only: its listing stays closed)`;
  const group = developers?.groups[0];
  return group === undefined
    ? `put the developers in one group G, then chgrp G ${posixQuote(blocker.path)} && chmod 0640 ${posixQuote(blocker.path)}`
    : `chgrp ${group} ${posixQuote(blocker.path)} && chmod 0640 ${posixQuote(blocker.path)}`;
}

export function checkCredentialAccess(
  view: TreeView,
  facts: CredentialAccessFacts,
  checks: Checks,
  options: { real: boolean; adminUid: number },
): void {
  const developers = developersOf(view);
  const { db } = facts;
  const errors: string[] = [];
  const warnings: string[] = [];
  // An account the host does not know: on the real install every launch by it fails; a staging
  // machine may simply not have the target's accounts.
  const unknown = (what: string) =>
    (options.real ? errors : warnings).push(
      `${what} is not an account on this machine; fix: create it, or correct deployment.json "developers" and re-render`,
    );
  const users = (developers?.users ?? []).flatMap((name) => {
    const account = findUser(db, name);
    if (account === undefined) unknown(`developers.users ${show(name)}`);
    return account === undefined ? [] : [account];
  });
  const groups = (developers?.groups ?? []).flatMap((name) => {
    const group = findGroup(db, name);
    if (group === undefined) unknown(`developers.groups ${show(name)}`);
    return group === undefined ? [] : [group];
  });
  const isDeveloper = (name: string, gid: number) =>
    users.some((u) => u.name === name) || groups.some((g) => g.gid === gid || g.members.includes(name));

  let judged = developers !== undefined;
  for (const [file, names] of credentialFiles(view)) {
    const chain = facts.chains.get(file);
    if (chain === undefined || chain === null || chain.length === 0) continue; // host.pins reports absence
    judged = true;
    const label = `credential file of ${names.join(', ')} ${show(file)}`;
    if (developers === undefined) {
      if (!readableByEveryone(chain) && readersOf(db, chain).length === 0) {
        warnings.push(
          `${label} can be read by root only: ${describe(chain.at(-1)!, db)}; every launch of a profile that needs it fails for a developer; fix: name who launches in deployment.json "developers" (users/groups), then ${blockerFix(chain.at(-1)!, undefined)}`,
        );
      }
      continue;
    }
    for (const user of users) {
      const blocker = readBlocker(principalOf(db, user), chain);
      if (blocker !== undefined)
        errors.push(
          `${label} cannot be read by developer ${user.name}: ${describe(blocker, db)} stops them, so every launch by ${user.name} fails; fix: ${blockerFix(blocker, developers)}`,
        );
    }
    for (const group of groups) {
      // A member who owns nothing: the group's own bits (and the other bits) decide.
      const blocker = readBlocker({ uid: -1, gids: new Set([group.gid]) }, chain);
      if (blocker !== undefined)
        errors.push(
          `${label} cannot be read by the members of developers group ${group.name}: ${describe(blocker, db)} stops them; fix: ${blockerFix(blocker, { users: [], groups: [group.name] })}`,
        );
    }
    if (readableByEveryone(chain)) {
      errors.push(
        `${label} is readable by every user on this machine (mode ${mode(chain.at(-1)!)}), not only by the deployment's developers; fix: chmod o-r ${posixQuote(file)}`,
      );
      continue;
    }
    const others = readersOf(db, chain).filter(
      (u) => u.uid !== options.adminUid && !isDeveloper(u.name, u.gid),
    );
    if (others.length > 0) {
      const shown = others.slice(0, 3).map((u) => u.name);
      errors.push(
        `${label} can also be read by ${shown.join(', ')}${others.length > 3 ? ` and ${others.length - 3} more` : ''}, not among deployment.json "developers": ${describe(chain.at(-1)!, db)}; fix: ${blockerFix({ ...chain.at(-1)!, directory: false }, developers)}, or add them to "developers"`,
      );
    }
  }
  const pass =
    developers === undefined
      ? 'every credential file here can be read by someone besides root (name the developers in deployment.json "developers" to check who)'
      : "every credential file here is readable by the deployment's developers and by no one else";
  if (judged || errors.length > 0) checks.expect('host.credentials', {}, errors, pass);
  for (const warning of warnings) checks.add('host.credentials', {}, false, warning, 'warning');
}
