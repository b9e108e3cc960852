// What the broker checks before it binds: its user, its credentials (files, or systemd's
// $CREDENTIALS_DIRECTORY), how it was started, and that it really became its user.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/base/hash.js';
import {
  BrokerStartError,
  brokerAccount,
  installOwnerProblems,
  loadBrokerConfig,
  readBrokerCredentials,
} from '../../../src/broker/load.js';
import { dropPrivileges, type IdentityOps, startMode } from '../../../src/broker/privileges.js';
import { checkBrokerStart } from '../../../src/broker/start.js';
import { PROVIDER_CALLER_HEADERS } from '../../../src/contracts/broker.js';
import type { BrokerConfig } from '../../../src/contracts/broker-config.js';
import { parseAccountDb } from '../../../src/host/accounts.js';
import { credentialFileValue } from '../../../src/policy/routed-credentials.js';

const config: BrokerConfig = {
  version: 1,
  user: 'qmb',
  allow: { users: ['alice'], groups: ['devs'] },
  host: '127.0.0.1',
  credentials: { TOKEN: { file: '/etc/qm/token' }, KEY: { file: '/etc/qm/key' } },
  listeners: [
    {
      name: 'on-demand',
      port: 941,
      upstream: 'https://kb.example.com',
      credential: 'TOKEN',
      header: { name: 'authorization', prefix: 'Bearer ' },
      maxBodyBytes: 1024,
      routes: [{ method: 'POST', path: '/v1/context/search' }],
      callerHeaders: [...PROVIDER_CALLER_HEADERS],
    },
  ],
};
const db = parseAccountDb(
  [
    'root:x:0:0::/root:/bin/bash',
    'alice:x:1001:1001::/h:/bin/bash',
    'qmb:x:998:998::/nonexistent:/usr/sbin/nologin',
    'carol:x:1003:3000::/h:/bin/bash',
  ].join('\n'),
  'devs:x:3000:\nqmb:x:998:\n',
);

function problems(fn: () => unknown): string[] {
  try {
    fn();
    return [];
  } catch (error) {
    if (error instanceof BrokerStartError) return [...error.problems];
    throw error;
  }
}

describe("the broker's user", () => {
  it.each<[string, BrokerConfig, string | undefined, RegExp | undefined]>([
    ['a system user without login', config, '/usr/sbin/nologin', undefined],
    [
      'missing',
      { ...config, user: 'nobody-here' },
      undefined,
      /^the broker's user nobody-here does not exist; create it as a system user: useradd --system/,
    ],
    [
      'a login shell',
      config,
      '/bin/bash',
      /^the broker's user qmb has the login shell "\/bin\/bash"; a login user is refused/,
    ],
    ['root', { ...config, user: 'root' }, '/bin/bash', /has uid 0/],
    [
      'an allowed developer (by group)',
      { ...config, user: 'carol' },
      '/usr/sbin/nologin',
      /is one of the users allowed to call it/,
    ],
  ])('%s', (_name, c, shell, refusal) => {
    const found = problems(() => brokerAccount(c, db, () => shell));
    if (refusal === undefined) expect(found).toEqual([]);
    else
      expect(
        found.some((p) => refusal.test(p)),
        found.join('\n'),
      ).toBe(true);
  });
});

describe("the install's administrator (manifest.json adminUid)", () => {
  it.each<[string, number, boolean]>([
    ['root', 0, false],
    ['an administrator who is no developer (the broker user here)', 998, false],
    ['an allowed developer by name', 1001, true],
    ['an allowed developer by group', 1003, true],
    ['a uid with no account', 4242, false],
  ])('%s', (_name, uid, refused) => {
    expect(installOwnerProblems(uid, config, db).length > 0).toBe(refused);
  });
});

describe('credentials', () => {
  const files: Record<string, string> = {
    '/etc/qm/token': 'tok-1\n',
    '/etc/qm/key': 'key-2\r\n',
    '/run/credentials/qwen-managed-broker.service/TOKEN': 'tok-from-systemd\n',
    '/run/credentials/qwen-managed-broker.service/KEY': 'key-from-systemd',
  };
  const readFile = (path: string) => {
    if (!Object.hasOwn(files, path)) throw Object.assign(new Error('no'), { code: 'EACCES' });
    return new TextEncoder().encode(files[path]);
  };

  it('from their files (as root), one trailing newline stripped', () => {
    expect(readBrokerCredentials(config, { readFile, valueOf: credentialFileValue })).toEqual(
      new Map([
        ['KEY', 'key-2'],
        ['TOKEN', 'tok-1'],
      ]),
    );
  });

  it("from systemd's $CREDENTIALS_DIRECTORY, by variable name (LoadCredential=NAME:file)", () => {
    expect(
      readBrokerCredentials(config, {
        credentialsDirectory: '/run/credentials/qwen-managed-broker.service',
        readFile,
        valueOf: credentialFileValue,
      }),
    ).toEqual(
      new Map([
        ['KEY', 'key-from-systemd'],
        ['TOKEN', 'tok-from-systemd'],
      ]),
    );
  });

  it('every unreadable, empty or multi-line one is named (never a value); a listener credential it does not hold too', () => {
    expect(
      problems(() =>
        readBrokerCredentials(
          {
            ...config,
            credentials: {
              TOKEN: { file: '/etc/qm/empty' },
              TWO: { file: '/etc/qm/two-lines' },
              X: { file: '/nope' },
            },
          },
          {
            readFile: (p) =>
              p === '/etc/qm/empty'
                ? new Uint8Array([10])
                : p === '/etc/qm/two-lines'
                  ? new TextEncoder().encode('sk-LEAK-one\nsk-LEAK-two\n')
                  : readFile(p),
            valueOf: credentialFileValue,
          },
        ),
      ),
    ).toEqual([
      'credential TOKEN: "/etc/qm/empty" is empty',
      'credential TWO: "/etc/qm/two-lines" holds a line break or NUL inside the secret, which no HTTP header can carry; write only the secret, on one line',
      'credential X: cannot read "/nope" (EACCES); start the broker as root, or under systemd with its drop-in (LoadCredential=X:…)',
    ]);
  });
});

// Negative control (by hand): a credential file that was not there was refused with "start the
// broker as root, or under systemd …" (the broker was started as root), and a missing user hid every
// other problem until it was fixed and the broker started again.
/** What the credential files' paths stat as on a well-kept host: root's, directories 0755, files 0600. */
function rootOnly(p: string) {
  const directory = !p.startsWith('/etc/qm/');
  return {
    uid: 0,
    gid: 0,
    mode: directory ? 0o40755 : 0o100600,
    isDirectory: () => directory,
    isSymbolicLink: () => false,
  };
}

describe('every start problem at once, each with its fix', () => {
  const machine = (
    readFile: (p: string) => Uint8Array,
    env: Record<string, string> = {},
    lstat: (p: string) => ReturnType<typeof rootOnly> = rootOnly,
  ) => ({
    fs: { readFileSync: readFile, lstatSync: lstat, readlinkSync: () => '' } as never,
    env,
    ids: { getuid: () => 0, geteuid: () => 0 } as never,
    shellOf: () => '/usr/sbin/nologin',
    credentialValue: credentialFileValue,
  });
  const cache = { get: () => db, withUid: () => db } as never;
  const absent = (p: string): Uint8Array => {
    if (p === '/etc/qm/token') return new TextEncoder().encode('tok\n');
    throw Object.assign(new Error('no'), { code: 'ENOENT' });
  };

  it('a missing user and a credential file that does not exist: both named', () => {
    expect(
      problems(() => checkBrokerStart({ ...config, user: 'nobody-here' }, machine(absent), cache, 0)),
    ).toEqual([
      "the broker's user nobody-here does not exist; create it as a system user: useradd --system --no-create-home --shell /usr/sbin/nologin nobody-here",
      'credential KEY: "/etc/qm/key" does not exist; fix: write the secret into it (owned by root, mode 0600), or name the file that holds it in deployment.json credentials.KEY and render again',
    ]);
  });

  it("under systemd, one the drop-in did not load: the drop-in's fix", () => {
    const dir = '/run/credentials/qwen-managed-broker.service';
    expect(
      problems(() =>
        checkBrokerStart(
          config,
          machine((p) => absent(p.replace(`${dir}/TOKEN`, '/etc/qm/token')), { CREDENTIALS_DIRECTORY: dir }),
          cache,
          0,
        ),
      ),
    ).toEqual([
      `credential KEY: "${dir}/KEY" does not exist: systemd did not load it; fix: install the install's broker/systemd.conf as the unit's drop-in (LoadCredential=KEY:…), then systemctl daemon-reload and restart the broker`,
    ]);
  });

  it('a credential file an allowed developer can read: refused, naming the file, who and the fix (not the value)', () => {
    const readable = (p: string) =>
      p === '/etc/qm/key' ? { ...rootOnly(p), mode: 0o100640, gid: 3000 } : rootOnly(p);
    expect(
      problems(() =>
        checkBrokerStart(
          config,
          machine((p) => new TextEncoder().encode(`${p}\n`), {}, readable),
          cache,
          0,
        ),
      ),
    ).toEqual([
      "credential file of KEY \"/etc/qm/key\" can be read by carol, allowed to use the broker: with a broker no developer may read it; fix: chown root:root '/etc/qm/key' && chmod 0600 '/etc/qm/key'",
    ]);
  });

  it('an install rendered by an allowed developer (manifest.json adminUid): refused with every other problem', () => {
    expect(
      problems(() =>
        checkBrokerStart(
          config,
          machine((p) => new TextEncoder().encode(`${p}\n`)),
          cache,
          1003,
        ),
      ),
    ).toEqual([
      "the install's administrator carol (uid 1003), who rendered it (manifest.json adminUid), is one of the users allowed to call the broker (broker.allow): the broker trusts their files, so they could point a credential at their own server; render the deployment as root (sudo qwen-managed render …), or as an administrator who is no developer",
    ]);
  });

  it('nothing wrong: the account, the start mode and the credentials', () => {
    const found = checkBrokerStart(
      config,
      machine((p) => new TextEncoder().encode(`${p}\n`)),
      cache,
      0,
    );
    expect([found.account.name, found.mode, [...found.credentials.keys()]]).toEqual([
      'qmb',
      'drop',
      ['KEY', 'TOKEN'],
    ]);
  });
});

describe('start mode and privilege drop', () => {
  function ids(uid: number): IdentityOps & { calls: string[] } {
    const state = { uid, gid: uid, groups: [0, 4, 27] };
    const calls: string[] = [];
    return {
      calls,
      getuid: () => state.uid,
      geteuid: () => state.uid,
      getgid: () => state.gid,
      getegid: () => state.gid,
      getgroups: () => state.groups,
      setgroups: (g) => {
        calls.push(`setgroups ${g}`);
        state.groups = g;
      },
      setgid: (g) => {
        calls.push(`setgid ${g}`);
        state.gid = g;
      },
      setuid: (u) => {
        calls.push(`setuid ${u}`);
        state.uid = u;
      },
    };
  }
  const account = { name: 'qmb', uid: 998, gid: 998 };

  it.each<[number, string | RegExp]>([
    [0, 'drop'],
    [998, 'already'],
    [1001, /^started as uid 1001: start the broker as root/],
  ])('started as uid %s', (uid, expected) => {
    if (typeof expected === 'string') expect(startMode(ids(uid), account)).toBe(expected);
    else expect(problems(() => startMode(ids(uid), account))[0]).toMatch(expected);
  });

  it('drops groups, then the group, then the user — and checks the result', () => {
    const root = ids(0);
    dropPrivileges(root, account);
    expect(root.calls).toEqual(['setgroups 998', 'setgid 998', 'setuid 998']);
    const stuck = { ...ids(0), setuid: () => {} };
    expect(problems(() => dropPrivileges(stuck, account))).toEqual([
      'could not become qmb (uid 998); not serving',
    ]);
  });
});

describe('broker.json and manifest.json as verify and the launcher read them', () => {
  // TextDecoder drops a byte order mark by default: the broker started from a manifest verify calls
  // invalid JSON (and the launcher now refuses). Real files, so StrictModes runs as at a real start.
  const install = (bom: boolean) => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-broker-load-')));
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(path.join(dir, 'broker'), { mode: 0o755 });
    const brokerJson = `${JSON.stringify(config)}\n`;
    fs.writeFileSync(path.join(dir, 'broker', 'broker.json'), brokerJson, { mode: 0o644 });
    const manifest = JSON.stringify({
      toolkitVersion: '0.1.0',
      deploymentSha256: 'a'.repeat(64),
      adminUid: process.getuid?.() ?? 0,
      files: { 'broker/broker.json': { sha256: sha256Hex(Buffer.from(brokerJson)), mode: '0644' } },
      profiles: {},
    });
    fs.writeFileSync(path.join(dir, 'manifest.json'), `${bom ? '\uFEFF' : ''}${manifest}`, { mode: 0o644 });
    return dir;
  };
  it.each([
    ['control: plain JSON loads', false, []],
    [
      'a byte order mark before manifest.json is refused',
      true,
      ['manifest.json" is not JSON; re-render the deployment'],
    ],
  ] as const)('%s', (_name, bom, expected) => {
    const dir = install(bom);
    try {
      const found = problems(() => loadBrokerConfig(dir, fs));
      expect(found.map((p) => p.slice(p.indexOf('manifest.json"')))).toEqual(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
