// verify's check of the files Qwen loads besides cli.js: the pure rule as a table, then real package
// trees with real modes, owners and symlinks.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { checkQwenTree, type QwenTreeFact } from '../../../src/deploy/verify/checks/qwen-tree.js';
import { Checks } from '../../../src/deploy/verify/report.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { allProfilesRaw, renderToDir, tempDir, verifyInstall } from './fixtures.js';

/** The supported list as the refusal names it (policies/qwen/versions.json is its one home). */
const SUPPORTED = SUPPORTED_QWEN_VERSIONS.join(', ');

const ROOT = '/opt/qwen/node_modules/@qwen-code/qwen-code';
const walked = (over: Partial<Extract<QwenTreeFact, { kind: 'walked' }>> = {}): QwenTreeFact => ({
  kind: 'walked',
  root: ROOT,
  qwenPackage: true,
  version: '0.24.4',
  entries: 1286,
  truncated: false,
  writable: { count: 0 },
  owners: new Map([[0, { count: 1286, first: ROOT, tree: ROOT }]]),
  dependencies: [],
  linkProblems: [],
  ...over,
});
const run = (fact: QwenTreeFact, adminUid = 0) => {
  const checks = new Checks();
  checkQwenTree(fact, adminUid, checks);
  return checks.list.map((c) => [c.ok, c.severity, c.message]);
};

describe('checkQwenTree', () => {
  it.each<[string, QwenTreeFact, number, [boolean, string, string][]]>([
    [
      'root-owned, nothing group/other-writable',
      walked(),
      0,
      [
        [
          true,
          'error',
          `Qwen's install "${ROOT}": 1286 entries, all owned by root and not writable by group or others; Qwen 0.24.4 is supported`,
        ],
      ],
    ],
    [
      'owned by the administrator who rendered',
      walked({ owners: new Map([[1000, { count: 1286, first: ROOT, tree: ROOT }]]) }),
      1000,
      [
        [
          true,
          'error',
          `Qwen's install "${ROOT}": 1286 entries, all owned by root or the administrator (uid 1000) and not writable by group or others; Qwen 0.24.4 is supported`,
        ],
      ],
    ],
    [
      'group-writable entries',
      walked({ writable: { count: 3, first: { path: `${ROOT}/chunks/a.js`, mode: 0o664, tree: ROOT } } }),
      0,
      [
        [
          false,
          'error',
          `Qwen's install "${ROOT}" has 3 entries writable by group or others, e.g. "${ROOT}/chunks/a.js" (mode 664); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '${ROOT}'`,
        ],
      ],
    ],
    [
      'entries of another user, one message per owner',
      walked({
        owners: new Map([
          [0, { count: 1283, first: ROOT, tree: ROOT }],
          [1001, { count: 1, first: `${ROOT}/cli.js`, tree: ROOT }],
          [1000, { count: 2, first: `${ROOT}/chunks`, tree: ROOT }],
        ]),
      }),
      0,
      [
        [
          false,
          'error',
          `Qwen's install "${ROOT}" has 2 entries owned by uid 1000, not root, e.g. "${ROOT}/chunks"; fix: chown -R root '${ROOT}'`,
        ],
        [
          false,
          'error',
          `Qwen's install "${ROOT}" has 1 entry owned by uid 1001, not root, e.g. "${ROOT}/cli.js"; fix: chown -R root '${ROOT}'`,
        ],
      ],
    ],
    [
      'a walk cut short at the cap',
      walked({ entries: 100_000, truncated: true }),
      0,
      [
        [
          true,
          'error',
          `Qwen's install "${ROOT}": 100000 entries, all owned by root and not writable by group or others; Qwen 0.24.4 is supported`,
        ],
        [
          false,
          'warning',
          `Qwen's install "${ROOT}" has more than 100000 entries; only the first 100000 were checked`,
        ],
      ],
    ],
    ...(['0.23.9', '0.24.1', '0.25.0', undefined] as const).map(
      (version): [string, QwenTreeFact, number, [boolean, string, string][]] => [
        `an unsupported Qwen ${version ?? '(no version)'}: an error, as the launcher refuses it`,
        walked({ version }),
        0,
        [
          [
            false,
            'error',
            `Qwen ${version ?? '(no version)'} at "${ROOT}" is not a version this toolkit supports (${SUPPORTED}); pin a supported Qwen or upgrade qwen-managed`,
          ],
        ],
      ],
    ),
    [
      'qwenCli outside the Qwen package',
      { kind: 'not-a-package', root: '/usr/local/bin' },
      0,
      [
        [
          false,
          'warning',
          `qwenCli's directory "/usr/local/bin" is not the @qwen-code/qwen-code package, so the files Qwen loads besides cli.js were not checked; pin <prefix>/node_modules/@qwen-code/qwen-code/cli.js`,
        ],
      ],
    ],
  ])('%s', (_name, fact, adminUid, expected) => {
    expect(run(fact, adminUid)).toEqual(expected);
  });
});

/** A rendered install whose qwenCli sits in a real package tree made by `make`; verify's host.qwen checks. */
async function verifyWithQwenTree(make: (pkg: string, outside: string) => Promise<void>) {
  const root = await tempDir('qm-qwen-tree-');
  await fs.chmod(root, 0o755);
  const pkg = await writeQwenPackage(root, '0.24.4');
  await fs.mkdir(path.join(pkg, 'chunks'));
  await fs.writeFile(path.join(pkg, 'chunks', 'a.js'), '');
  const outside = path.join(root, 'outside');
  await fs.mkdir(outside);
  await make(pkg, outside);
  const raw = await allProfilesRaw();
  Object.assign(raw, { qwenCli: path.join(pkg, 'cli.js') });
  const dir = await renderToDir(parseDeploymentValue(raw));
  const report = await verifyInstall(dir, { smoke: false });
  return report.checks
    .filter((c) => c.id === 'host.qwen')
    .map((c) => [c.ok, c.severity, c.message.replaceAll(root, '<tmp>')]);
}

describe('verify walks the real Qwen package (this machine, real modes and owners)', () => {
  it('passes for a tree owned by root with npm modes: cli.js, chunks/, chunks/a.js, package.json', async () => {
    expect(await verifyWithQwenTree(async () => {})).toEqual([
      [
        true,
        'error',
        `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code": 5 entries, all owned by root and not writable by group or others; Qwen 0.24.4 is supported`,
      ],
    ]);
  });

  it('names a group-writable chunk', async () => {
    const checks = await verifyWithQwenTree((pkg) => fs.chmod(path.join(pkg, 'chunks', 'a.js'), 0o664));
    expect(checks).toEqual([
      [
        false,
        'error',
        expect.stringContaining(
          `has 1 entry writable by group or others, e.g. "<tmp>/node_modules/@qwen-code/qwen-code/chunks/a.js" (mode 664)`,
        ),
      ],
    ]);
  });

  it('names a chunk owned by another user', async () => {
    const checks = await verifyWithQwenTree((pkg) => fs.chown(path.join(pkg, 'chunks', 'a.js'), 4242, 0));
    expect(checks).toEqual([
      [false, 'error', expect.stringContaining('has 1 entry owned by uid 4242, not root, e.g. "<tmp>/')],
    ]);
  });

  it('judges a symlink by its target: a link to a world-writable file outside the package fails', async () => {
    const checks = await verifyWithQwenTree(async (pkg, outside) => {
      const target = path.join(outside, 'worker.js');
      await fs.writeFile(target, '');
      await fs.chmod(target, 0o666);
      await fs.symlink(target, path.join(pkg, 'chunks', 'worker.js'));
    });
    expect(checks).toEqual([
      [
        false,
        'error',
        expect.stringContaining('e.g. "<tmp>/node_modules/@qwen-code/qwen-code/chunks/worker.js" (mode 666)'),
      ],
    ]);
  });

  // npm hoists Qwen's dependencies beside it (the Debian package's /opt/qwen-managed/qwen/node_modules,
  // the e2e toolchain): Qwen 0.24.4 imports @lydell/node-pty from there for every shell command
  // (measured: a payload in its index.js ran in Qwen's process at `!echo`). Each row makes a
  // hoisted layout — the package declaring the dependency, the dependency beside it — then one change.
  const DEP = '<tmp>/node_modules/@lydell/node-pty';
  const hoisted =
    (change: (dep: string, modules: string, pkg: string) => Promise<void>) =>
    async (pkg: string): Promise<void> => {
      const modules = path.dirname(path.dirname(pkg));
      await fs.writeFile(
        path.join(pkg, 'package.json'),
        JSON.stringify({
          name: '@qwen-code/qwen-code',
          version: '0.24.4',
          optionalDependencies: { '@lydell/node-pty': '1.2.0-beta.10', sharp: '0.35.4' },
        }),
      );
      const dep = path.join(modules, '@lydell', 'node-pty');
      await fs.mkdir(dep, { recursive: true });
      await fs.writeFile(path.join(dep, 'package.json'), JSON.stringify({ name: '@lydell/node-pty' }));
      await fs.writeFile(path.join(dep, 'index.js'), '');
      // An unrelated package beside Qwen: not imported, not judged.
      await fs.mkdir(path.join(modules, 'unrelated'));
      await fs.writeFile(path.join(modules, 'unrelated', 'index.js'), '');
      await fs.chmod(path.join(modules, 'unrelated', 'index.js'), 0o666);
      await change(dep, modules, pkg);
    };
  it.each<
    [string, (dep: string, modules: string, pkg: string) => Promise<void>, [boolean, string, unknown][]]
  >([
    [
      'control: a hoisted dependency owned by root with npm modes passes, and is counted',
      async () => {},
      [
        [
          true,
          'error',
          `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" (with 1 package(s) it imports from beside it): 8 entries, all owned by root and not writable by group or others; Qwen 0.24.4 is supported`,
        ],
      ],
    ],
    [
      "a group-writable file of a dependency npm hoisted beside Qwen (Qwen loads @lydell/node-pty's index.js)",
      (dep) => fs.chmod(path.join(dep, 'index.js'), 0o664),
      [
        [
          false,
          'error',
          `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" has 1 entry writable by group or others, e.g. "${DEP}/index.js" (mode 664, in "${DEP}", a package Qwen imports); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '<tmp>/node_modules/@qwen-code/qwen-code' '${DEP}'`,
        ],
      ],
    ],
    [
      'a hoisted dependency owned by another user',
      (dep) => fs.chown(dep, 4242, 0),
      [
        [
          false,
          'error',
          `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" has 1 entry owned by uid 4242, not root, e.g. "${DEP}" (in "${DEP}", a package Qwen imports); fix: chown -R root '<tmp>/node_modules/@qwen-code/qwen-code' '${DEP}'`,
        ],
      ],
    ],
    [
      "a dependency's own dependency, found where Node finds it (beside it), is judged too",
      async (dep, modules) => {
        await fs.writeFile(
          path.join(dep, 'package.json'),
          JSON.stringify({ name: '@lydell/node-pty', optionalDependencies: { 'node-pty-native': '1' } }),
        );
        await fs.mkdir(path.join(modules, 'node-pty-native'));
        await fs.writeFile(path.join(modules, 'node-pty-native', 'pty.node'), '');
        await fs.chmod(path.join(modules, 'node-pty-native', 'pty.node'), 0o646);
      },
      [
        [
          false,
          'error',
          `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" has 1 entry writable by group or others, e.g. "<tmp>/node_modules/node-pty-native/pty.node" (mode 646, in "<tmp>/node_modules/node-pty-native", a package Qwen imports); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '<tmp>/node_modules/@qwen-code/qwen-code' '<tmp>/node_modules/node-pty-native'`,
        ],
      ],
    ],
    [
      "a dependency inside the package's own node_modules wins over the hoisted one (Node's order), and is walked with the package",
      async (_dep, _modules, pkg) => {
        const nested = path.join(pkg, 'node_modules', '@lydell', 'node-pty');
        await fs.mkdir(nested, { recursive: true });
        await fs.writeFile(path.join(nested, 'index.js'), '');
        await fs.chmod(path.join(nested, 'index.js'), 0o666);
      },
      [
        [
          false,
          'error',
          // (the long path is shortened by show(); the fix names the package alone: nothing outside it is loaded)
          expect.stringMatching(
            /^Qwen's install "<tmp>\/node_modules\/@qwen-code\/qwen-code" has 1 entry writable by group or others, e\.g\. "<tmp>\/node_modules\/@qwen-code\/qwen-code\/node_modules\/.* \(mode 666\); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '<tmp>\/node_modules\/@qwen-code\/qwen-code'$/,
          ),
        ],
      ],
    ],
  ])('%s', async (_name, change, expected) => {
    expect(await verifyWithQwenTree(hoisted(change))).toEqual(expected);
  });

  // A link is what Qwen loads through it: the file it leads to was judged, the way to it was not — a
  // root-owned chunk in a directory anyone may write passed verify and the launcher (measured), and a
  // linked directory (locales -> …) was not walked at all.
  it.each<[string, (pkg: string, outside: string) => Promise<void>, [boolean, string, unknown][]]>([
    [
      'control: a link to a root-owned file in a directory only root may write passes',
      async (pkg, outside) => {
        await fs.writeFile(path.join(outside, 'b.js'), '');
        await fs.symlink(path.join(outside, 'b.js'), path.join(pkg, 'chunks', 'b.js'));
      },
      [[true, 'error', expect.stringContaining('all owned by root and not writable by group or others')]],
    ],
    [
      'a link to a root-owned file in a directory anyone may write (a rename replaces it)',
      async (pkg, outside) => {
        await fs.writeFile(path.join(outside, 'b.js'), '');
        await fs.chmod(outside, 0o777);
        await fs.symlink(path.join(outside, 'b.js'), path.join(pkg, 'chunks', 'b.js'));
      },
      [
        [
          false,
          'error',
          `the link "<tmp>/node_modules/@qwen-code/qwen-code/chunks/b.js" of Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" leads to what Qwen loads, but "<tmp>/outside" is a directory writable by group or others (mode 0777); fix: chmod go-w '<tmp>/outside'`,
        ],
      ],
    ],
    [
      'a linked directory is walked: a file of another user in it',
      async (pkg, outside) => {
        await fs.mkdir(path.join(outside, 'locales'));
        await fs.writeFile(path.join(outside, 'locales', 'en.js'), '');
        await fs.chown(path.join(outside, 'locales', 'en.js'), 4242, 0);
        await fs.symlink(path.join(outside, 'locales'), path.join(pkg, 'locales'));
      },
      [
        [
          false,
          'error',
          `Qwen's install "<tmp>/node_modules/@qwen-code/qwen-code" has 1 entry owned by uid 4242, not root, e.g. "<tmp>/outside/locales/en.js" (in "<tmp>/outside/locales", where a link of it leads); fix: chown -R root '<tmp>/node_modules/@qwen-code/qwen-code' '<tmp>/outside/locales'`,
        ],
      ],
    ],
  ])('%s', async (_name, make, expected) => {
    expect(await verifyWithQwenTree(make)).toEqual(expected);
  });

  it('warns when qwenCli is not inside the Qwen package', async () => {
    const checks = await verifyWithQwenTree((pkg) =>
      fs.writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'something-else' })),
    );
    expect(checks.map(([ok, severity]) => [ok, severity])).toEqual([[false, 'warning']]);
  });
});
