// Who can read or swap a credential file the broker holds (src/broker/credential-files.ts) over the
// walk the kernel makes to open it (src/host/file-chain.ts): one judgement, refused by the broker's
// start and failed by verify's broker.credentials. Pure: a user database and a fake tree.
import { describe, expect, it } from 'vitest';
import { judgeCredentialFile } from '../../../src/broker/credential-files.js';
import { parseAccountDb } from '../../../src/host/accounts.js';
import { type ChainFs, walkFileChain } from '../../../src/host/file-chain.js';

const db = parseAccountDb(
  [
    'root:x:0:0::/root:/bin/bash',
    'alice:x:1001:1001::/h:/bin/bash',
    'bob:x:1002:1002::/h:/bin/bash',
    'qmb:x:998:998::/nonexistent:/usr/sbin/nologin',
    'admin:x:1000:1000::/h:/bin/bash',
  ].join('\n'),
  'devs:x:3000:alice\n',
);
const broker = { user: 'qmb', allow: { users: [], groups: ['devs'] }, adminUid: 1000 };

interface Entry {
  uid?: number;
  gid?: number;
  mode: number;
  link?: string;
}

/** A tree of paths → entries; a directory mode has 0o40000, a link its target. */
function tree(entries: Record<string, Entry>, hidden: readonly string[] = []): ChainFs {
  return {
    lstatSync(p) {
      if (hidden.some((h) => p.startsWith(`${h}/`))) throw Object.assign(new Error(p), { code: 'EACCES' });
      const e = entries[p];
      if (e === undefined) throw Object.assign(new Error(p), { code: 'ENOENT' });
      return {
        uid: e.uid ?? 0,
        gid: e.gid ?? 0,
        mode: e.mode,
        isDirectory: () => (e.mode & 0o170000) === 0o40000,
        isSymbolicLink: () => e.link !== undefined,
      };
    },
    readlinkSync(p) {
      return entries[p]!.link!;
    },
  };
}

const base: Record<string, Entry> = {
  '/': { mode: 0o40755 },
  '/etc': { mode: 0o40755 },
  '/etc/qm': { mode: 0o40700 },
  '/etc/qm/key': { mode: 0o100600 },
};

function judge(entries: Record<string, Entry>, file = '/etc/qm/key', hidden: readonly string[] = []) {
  return judgeCredentialFile('KEY', file, walkFileChain(file, tree(entries, hidden)), db, broker);
}

describe('a credential file the broker holds', () => {
  it('root-only (0600 in a 0700 directory): nothing to say', () => {
    expect(judge(base)).toEqual({ errors: [], warnings: [] });
  });

  it.each<[string, Record<string, Entry>, RegExp]>([
    [
      'readable by the developers’ group',
      { ...base, '/etc/qm': { mode: 0o40755 }, '/etc/qm/key': { mode: 0o100640, gid: 3000 } },
      /^credential file of KEY "\/etc\/qm\/key" can be read by alice, allowed to use the broker: with a broker no developer may read it; fix: chown root:root/,
    ],
    [
      'readable by everyone',
      { ...base, '/etc/qm': { mode: 0o40755 }, '/etc/qm/key': { mode: 0o100644 } },
      /is readable by every user: the broker protects nothing/,
    ],
    [
      "in a directory a developer may write: they put their own file (or a link) in the secret's place",
      { ...base, '/etc/qm': { mode: 0o40770, gid: 3000 } },
      /^credential file of KEY "\/etc\/qm\/key" can be replaced by alice, allowed to use the broker: "\/etc\/qm" \(directory, mode 0770, owner root\) is writable by them; fix: chown root:root '\/etc\/qm' && chmod go-w '\/etc\/qm'$/,
    ],
    [
      'owned by a developer (mode 0000: they can chmod it)',
      { ...base, '/etc/qm/key': { mode: 0o100000, uid: 1001 } },
      /can be replaced by alice, allowed to use the broker: "\/etc\/qm\/key" \(file, mode 0000, owner alice\) is theirs/,
    ],
    [
      "a link whose own directory a developer may write (the target's are root's)",
      {
        ...base,
        '/srv': { mode: 0o40777 },
        '/srv/key': { mode: 0o120777, link: '/etc/qm/key' },
      },
      /can be replaced by alice, allowed to use the broker: "\/srv" \(directory, mode 0777, owner root\) is writable by them/,
    ],
  ])('%s: refused', (_name, entries, refusal) => {
    const file = Object.hasOwn(entries, '/srv/key') ? '/srv/key' : '/etc/qm/key';
    const { errors } = judge(entries, file);
    expect(errors).toEqual([expect.stringMatching(refusal)]);
  });

  it('a link into a root-only directory, from a root-only directory: followed and judged at its target', () => {
    const entries = { ...base, '/etc/key': { mode: 0o120777, link: 'qm/key' } };
    expect(judge(entries, '/etc/key')).toEqual({ errors: [], warnings: [] });
    const open = { ...entries, '/etc/qm': { mode: 0o40755 }, '/etc/qm/key': { mode: 0o100644 } };
    expect(judge(open, '/etc/key').errors).toEqual([expect.stringMatching(/readable by every user/)]);
  });

  it('in a sticky world-writable directory, root-owned: no developer can swap it', () => {
    expect(judge({ ...base, '/etc/qm': { mode: 0o41777 } }).errors).toEqual([]);
  });

  it('a reader who may not use the broker: a warning, not a refusal', () => {
    expect(
      judge({ ...base, '/etc/qm': { mode: 0o40755 }, '/etc/qm/key': { mode: 0o100640, gid: 1002 } }),
    ).toEqual({
      errors: [],
      warnings: [expect.stringMatching(/can also be read by bob; only root needs to/)],
    });
  });

  it('under systemd the broker may not see past a directory: fine when it keeps every developer out too', () => {
    expect(judge(base, '/etc/qm/key', ['/etc/qm'])).toEqual({ errors: [], warnings: [] });
    const entered = { ...base, '/etc/qm': { mode: 0o40750, gid: 3000 } };
    expect(judge(entered, '/etc/qm/key', ['/etc/qm']).errors).toEqual([
      expect.stringMatching(
        /^credential file of KEY "\/etc\/qm\/key" cannot be judged: the broker cannot look past "\/etc\/qm" \(EACCES\), which alice, allowed to use the broker, can enter; fix:/,
      ),
    ]);
  });

  it('a file that is not there: named (the broker names it with the fix when it reads)', () => {
    const { ['/etc/qm/key']: _gone, ...rest } = base;
    expect(judge(rest).errors).toEqual([
      'credential file of KEY "/etc/qm/key" does not exist; the broker refuses to start without it',
    ]);
  });
});
