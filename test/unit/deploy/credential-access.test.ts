// host.credentials: the credential files against the deployment's `developers`, judged from owners and
// modes (src/host/accounts.ts). Pure: a user database and path chains written out here; the verify run
// over real files and real accounts is in test/integration/deploy/status.test.ts.
import { describe, expect, it } from 'vitest';
import { checkCredentialAccess } from '../../../src/deploy/verify/checks/credential-access.js';
import { Checks } from '../../../src/deploy/verify/report.js';
import type { TreeView } from '../../../src/deploy/verify/view.js';
import {
  type AccountDb,
  type PathStat,
  parseAccountDb,
  principalOf,
  readBlocker,
  readersOf,
} from '../../../src/host/accounts.js';

const DB: AccountDb = parseAccountDb(
  [
    'root:x:0:0:root:/root:/bin/bash',
    'admin:x:900:900::/home/admin:/bin/sh',
    'alice:x:1001:1001::/home/alice:/bin/sh',
    'bob:x:1002:1002::/home/bob:/bin/sh',
    'carol:x:1003:1500::/home/carol:/bin/sh',
    'malformed line',
  ].join('\n'),
  [
    'root:x:0:',
    'admin:x:900:',
    'alice:x:1001:',
    'bob:x:1002:',
    'qwen-dev:x:1500:alice',
    'staff:x:50:alice,bob',
  ].join('\n'),
);

const dir = (p: string, mode = 0o755, uid = 0, gid = 0): PathStat => ({
  path: p,
  uid,
  gid,
  mode,
  directory: true,
});
const file = (mode: number, gid = 0, uid = 0): PathStat => ({
  path: '/etc/qm/token',
  uid,
  gid,
  mode,
  directory: false,
});
const chain = (f: PathStat, qm = dir('/etc/qm')) => [dir('/'), dir('/etc'), qm, f];

describe('who can read a file (owner, group, other bits, search on every directory)', () => {
  const user = (name: string) => principalOf(DB, DB.users.find((u) => u.name === name)!);
  it.each<[string, PathStat[], string[]]>([
    [
      '0640 root:qwen-dev: the members of qwen-dev (alice, carol by primary group)',
      chain(file(0o640, 1500)),
      ['alice', 'carol'],
    ],
    ['0640 root:root: nobody but root', chain(file(0o640, 0)), []],
    ['0600 admin:admin: the owner', chain(file(0o600, 900, 900)), ['admin']],
    ['0644: everyone', chain(file(0o644)), ['admin', 'alice', 'bob', 'carol']],
    ['0644 in a 0700 directory: nobody', chain(file(0o644), dir('/etc/qm', 0o700)), []],
    [
      '0640 root:staff in a 0750 root:staff directory: alice, bob',
      chain(file(0o640, 50), dir('/etc/qm', 0o750, 0, 50)),
      ['alice', 'bob'],
    ],
    // The first matching class decides: the owner bits deny the owner even when the group bits allow.
    ['0040 alice:qwen-dev: the group but not the owner', chain(file(0o040, 1500, 1001)), ['carol']],
  ])('%s', (_, stats, readers) => {
    expect(readersOf(DB, stats).map((u) => u.name)).toEqual(readers);
  });

  it('names the entry that stops a user', () => {
    expect(readBlocker(user('bob'), chain(file(0o644), dir('/etc/qm', 0o700)))?.path).toBe('/etc/qm');
    expect(readBlocker(user('bob'), chain(file(0o640, 1500)))?.path).toBe('/etc/qm/token');
    expect(readBlocker(user('alice'), chain(file(0o640, 1500)))).toBeUndefined();
  });
});

function viewWith(developers?: { users: string[]; groups: string[] }): TreeView {
  const plan = {
    credentials: { CONTEXT_API_TOKEN: { file: '/etc/qm/token' }, MODEL_KEY: { inherit: true } },
    developers,
  };
  return { profiles: [{ kind: 'on-demand', plan }] } as unknown as TreeView;
}

function judge(view: TreeView, stats: PathStat[] | null, real = true) {
  const checks = new Checks();
  checkCredentialAccess(view, { db: DB, chains: new Map([['/etc/qm/token', stats]]) }, checks, {
    real,
    adminUid: 900,
  });
  return checks.list.filter((c) => !c.ok).map((c) => [c.severity, c.message]);
}

describe('host.credentials', () => {
  const label = 'credential file of CONTEXT_API_TOKEN "/etc/qm/token"';
  it('passes: 0640 root:qwen-dev for developers group qwen-dev', () => {
    expect(judge(viewWith({ users: [], groups: ['qwen-dev'] }), chain(file(0o640, 1500)))).toEqual([]);
  });

  it('fails: 0640 root:root — no developer can read it (the issue 28 row)', () => {
    expect(judge(viewWith({ users: ['alice'], groups: [] }), chain(file(0o640, 0)))).toEqual([
      [
        'error',
        `${label} cannot be read by developer alice: "/etc/qm/token" (file, mode 0640, root:root) stops them, so every launch by alice fails; fix: put the developers in one group G, then chgrp G '/etc/qm/token' && chmod 0640 '/etc/qm/token'`,
      ],
    ]);
  });

  it('fails: a directory above it without search permission, naming it and the fix', () => {
    expect(
      judge(viewWith({ users: [], groups: ['qwen-dev'] }), chain(file(0o640, 1500), dir('/etc/qm', 0o700))),
    ).toEqual([
      [
        'error',
        `${label} cannot be read by the members of developers group qwen-dev: "/etc/qm" (directory, mode 0700, root:root) stops them; fix: chmod a+x '/etc/qm' (search only: its listing stays closed)`,
      ],
    ]);
  });

  it('fails: readable by someone who is not a developer (group staff holds bob)', () => {
    expect(judge(viewWith({ users: ['alice'], groups: [] }), chain(file(0o640, 50)))).toEqual([
      [
        'error',
        `${label} can also be read by bob, not among deployment.json "developers": "/etc/qm/token" (file, mode 0640, root:staff); fix: put the developers in one group G, then chgrp G '/etc/qm/token' && chmod 0640 '/etc/qm/token', or add them to "developers"`,
      ],
    ]);
  });

  it('fails: readable by every user', () => {
    expect(judge(viewWith({ users: [], groups: ['qwen-dev'] }), chain(file(0o644, 1500)))).toEqual([
      [
        'error',
        `${label} is readable by every user on this machine (mode 0644), not only by the deployment's developers; fix: chmod o-r '/etc/qm/token'`,
      ],
    ]);
  });

  it('an unknown developer: an error on the real install, a warning on a staged tree', () => {
    const view = viewWith({ users: ['dave'], groups: [] });
    const line =
      'developers.users "dave" is not an account on this machine; fix: create it, or correct deployment.json "developers" and re-render';
    expect(judge(view, null, true)).toEqual([['error', line]]);
    expect(judge(view, null, false)).toEqual([['warning', line]]);
  });

  it('without "developers": a file only root can read is a warning; one someone else reads passes', () => {
    expect(judge(viewWith(), chain(file(0o640, 0)))).toEqual([
      [
        'warning',
        `${label} can be read by root only: "/etc/qm/token" (file, mode 0640, root:root); every launch of a profile that needs it fails for a developer; fix: name who launches in deployment.json "developers" (users/groups), then put the developers in one group G, then chgrp G '/etc/qm/token' && chmod 0640 '/etc/qm/token'`,
      ],
    ]);
    expect(judge(viewWith(), chain(file(0o640, 1500)))).toEqual([]);
    // Absent (host.pins says so) or inherited: nothing to judge here.
    expect(judge(viewWith(), null)).toEqual([]);
  });
});
