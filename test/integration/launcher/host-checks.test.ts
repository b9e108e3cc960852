// One set of host checks: a real install rendered by the built CLI, one mutation per row, then the
// same table run twice — `qwen-managed verify` on the install (as root, the administrator) and
// `launch-qwen` as a throwaway non-root user in a real pseudo-terminal. Both must report exactly the
// same problem lines (src/host/install-checks.ts judges for both), and the stub Qwen must not start.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import { repoRoot } from '../../e2e/harness/paths.js';
import {
  finished,
  launcherSuite,
  node22Binary,
  pinNode,
  readRecord,
  type Stub,
  writeStubQwen,
} from './harness.js';

/** The supported list as the refusal names it (policies/qwen/versions.json is its one home). */
const SUPPORTED = SUPPORTED_QWEN_VERSIONS.join(', ');

const CLI = path.join(repoRoot, 'dist', 'cli', 'qwen-managed.js');
const CALLER_ENV = { TERM: 'xterm-256color', LANG: 'C.UTF-8', PATH: '/usr/bin:/bin' };
const OTHER_UID = 4242;
const suite = launcherSuite('qm-host-checks-', 'hostchk');
/** A node for running the launcher bundle itself, so a row may remove the pinned one. */
let runner: string;
let counter = 0;

interface Install {
  root: string;
  install: string;
  node: string;
  qwen: string;
  stub: Stub;
  token: string;
  repo: string;
}

const q = (value: string) => JSON.stringify(value);
const file = (i: Install, rel: string) => path.join(i.install, rel);

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  runner = pinNode(node22Binary(), path.join(suite.base, 'runner', 'node'));
});

/**
 * Renders a fresh on-demand install with the built CLI: its own node, Qwen package (0.24.4) and
 * credential, and `settings` as deployment.json's settings block when given.
 */
function renderInstall(settings?: Record<string, unknown>): Install {
  const root = path.join(suite.base, `i${counter++}`);
  fs.mkdirSync(root, { mode: 0o755 });
  const node = pinNode(runner, path.join(root, 'node', 'bin', 'node'));
  const stub = writeStubQwen(root, {}, suite.user);
  const qwen = path.dirname(stub.cli);
  // The stand-in sits in a Qwen package of a supported version, with a chunk beside cli.js.
  fs.writeFileSync(
    path.join(qwen, 'package.json'),
    JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.24.4', type: 'commonjs' }),
    { mode: 0o644 },
  );
  fs.mkdirSync(path.join(qwen, 'chunks'), { mode: 0o755 });
  fs.writeFileSync(path.join(qwen, 'chunks', 'chunk-A.js'), '// chunk\n', { mode: 0o644 });
  const token = path.join(root, 'secrets', 'context.token');
  fs.mkdirSync(path.dirname(token), { mode: 0o755 });
  fs.writeFileSync(token, 'tok-host-checks\n', { mode: 0o644 });
  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo, { mode: 0o755 });
  // A directory of the administrator's own first on the pinned PATH, for the PATH rows.
  fs.mkdirSync(path.join(root, 'tools', 'bin'), { recursive: true, mode: 0o755 });
  const install = path.join(root, 'install');
  const deployment = path.join(root, 'deployment.json');
  fs.writeFileSync(
    deployment,
    JSON.stringify({
      version: 1,
      platform: 'posix',
      installDir: install,
      node,
      qwenCli: stub.cli,
      repositoryRoot: repo,
      environment: { PATH: `${path.join(root, 'tools', 'bin')}:/usr/bin:/bin`, inherit: ['TERM', 'LANG'] },
      credentials: { CONTEXT_API_TOKEN: { file: token } },
      ...(settings === undefined ? {} : { settings }),
      profiles: {
        'on-demand': {
          provider: {
            type: 'generic-http-search-v1',
            baseUrl: 'https://context.example.com',
            tokenEnv: 'CONTEXT_API_TOKEN',
          },
          timeoutMs: 5000,
        },
      },
    }),
  );
  const render = spawnSync(process.execPath, [CLI, 'render', '--deployment', deployment], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(render.status, render.stderr).toBe(0);
  return { root, install, node, qwen, stub, token, repo };
}

/** `qwen-managed verify` on the real install: its verdict and the launcher-check lines. */
function verify(i: Install) {
  const run = spawnSync(process.execPath, [CLI, 'verify', '--dir', i.install, '--json', '--skip-smoke'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  const report = JSON.parse(run.stdout) as {
    ok: boolean;
    checks: Array<{ id: string; ok: boolean; severity: string; message: string }>;
  };
  const failed = (id: string) => report.checks.filter((c) => c.id === id && !c.ok).map((c) => c.message);
  return { code: run.status, ok: report.ok, problems: failed('host.install'), report, failed };
}

/** `launch-qwen --profile on-demand` as the non-root user: its exit, its problem lines, and whether Qwen ran. */
async function launch(i: Install) {
  const session = suite.sessions.start(
    [runner, file(i, 'runtime/launch-qwen.js'), '--profile', 'on-demand'],
    CALLER_ENV,
    suite.user,
    suite.base,
  );
  const { exit, output } = await finished(session);
  const problems = output
    .split('\n')
    .filter((line) => line.startsWith('launch-qwen: '))
    .map((line) => line.slice('launch-qwen: '.length));
  return { code: exit.exitCode, output, problems, started: readRecord(i.stub) !== undefined };
}

type Row = [name: string, mutate: (i: Install) => void, problems: (i: Install) => string[]];

const writable = (dir: string) =>
  `${q(dir)} is a directory writable by group or others (mode 0777); fix: chmod go-w '${dir}'`;
const ownedByOther = (p: string) => `${q(p)} is owned by uid ${OTHER_UID}, not root; fix: chown root '${p}'`;

// The observations (each passed verify and was refused by the launcher), then the rest of
// what the launcher judges: existence, checksums, the whole Qwen package and its version.
const ROWS: Row[] = [
  [
    'the install directory is world-writable',
    (i) => fs.chmodSync(i.install, 0o777),
    (i) => [writable(i.install)],
  ],
  [
    'profiles/ is world-writable',
    (i) => fs.chmodSync(file(i, 'profiles'), 0o777),
    (i) => [writable(file(i, 'profiles'))],
  ],
  [
    'runtime/ is world-writable',
    (i) => fs.chmodSync(file(i, 'runtime'), 0o777),
    (i) => [writable(file(i, 'runtime'))],
  ],
  [
    "a credential file's parent directory is world-writable",
    (i) => fs.chmodSync(path.dirname(i.token), 0o777),
    (i) => [writable(path.dirname(i.token))],
  ],
  [
    "node's bin/ is world-writable",
    (i) => fs.chmodSync(path.dirname(i.node), 0o777),
    (i) => [writable(path.dirname(i.node))],
  ],
  [
    'a managed file is owned by another uid',
    (i) => fs.chownSync(file(i, 'profiles/on-demand/system-settings.json'), OTHER_UID, 0),
    (i) => [ownedByOther(file(i, 'profiles/on-demand/system-settings.json'))],
  ],
  [
    'runtime/ is owned by another uid',
    (i) => fs.chownSync(file(i, 'runtime'), OTHER_UID, 0),
    (i) => [ownedByOther(file(i, 'runtime'))],
  ],
  [
    // Qwen runs hooks with `bash` from the pinned PATH: whoever adds one there answers for the hooks.
    'a PATH directory is sticky and world-writable',
    (i) => fs.chmodSync(path.join(i.root, 'tools', 'bin'), 0o1777),
    (i) => [
      `environment.PATH entry ${q(path.join(i.root, 'tools', 'bin'))} is a sticky directory writable by group or others (mode 1777): anyone may add a program to it, bash for the hooks among them; fix: take it out of environment.PATH in deployment.json`,
    ],
  ],
  [
    'a missing PATH directory anyone may create',
    (i) => {
      fs.rmdirSync(path.join(i.root, 'tools', 'bin'));
      fs.chmodSync(path.join(i.root, 'tools'), 0o1777);
    },
    (i) => [
      `environment.PATH entry ${q(path.join(i.root, 'tools', 'bin'))} does not exist, and anyone may create it in ${q(path.join(i.root, 'tools'))} (mode 1777); fix: take it out of environment.PATH in deployment.json, or create it as root (mkdir -p '${path.join(i.root, 'tools', 'bin')}')`,
    ],
  ],
  [
    'the pinned node is missing',
    (i) => fs.rmSync(i.node),
    (i) => [
      `node ${q(i.node)} does not exist; fix: install Node 22 there, or name where it is in deployment.json "node" and render again`,
    ],
  ],
  [
    'Qwen is missing',
    (i) => fs.rmSync(i.stub.cli),
    (i) => [
      `Qwen cli ${q(i.stub.cli)} does not exist; fix: install Qwen (docs/admin.md, "Installing Qwen for a deployment") there, or name where it is in deployment.json "qwenCli" and render again`,
    ],
  ],
  [
    'the credential file is missing',
    (i) => fs.rmSync(i.token),
    (i) => [
      `credential file of CONTEXT_API_TOKEN ${q(i.token)} does not exist; fix: write the secret into it (owned by root, readable by the developers only), or name the file that holds it in deployment.json credentials.CONTEXT_API_TOKEN and render again`,
    ],
  ],
  [
    'a managed file changed after render',
    (i) => fs.appendFileSync(file(i, 'profiles/on-demand/mcp.json'), ' '),
    (i) => [
      `${q(file(i, 'profiles/on-demand/mcp.json'))} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
    ],
  ],
  [
    "a chunk of Qwen's package is group-writable",
    (i) => fs.chmodSync(path.join(i.qwen, 'chunks', 'chunk-A.js'), 0o664),
    (i) => [
      `Qwen's install ${q(i.qwen)} has 1 entry writable by group or others, e.g. ${q(path.join(i.qwen, 'chunks', 'chunk-A.js'))} (mode 664); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '${i.qwen}'`,
    ],
  ],
  [
    "a chunk of Qwen's package is owned by another uid",
    (i) => fs.chownSync(path.join(i.qwen, 'chunks'), OTHER_UID, 0),
    (i) => [
      `Qwen's install ${q(i.qwen)} has 1 entry owned by uid ${OTHER_UID}, not root, e.g. ${q(path.join(i.qwen, 'chunks'))}; fix: chown -R root '${i.qwen}'`,
    ],
  ],
  [
    // npm hoists Qwen's dependencies beside its package (the Debian package's layout); Qwen 0.24.4
    // imports @lydell/node-pty's index.js from there for every shell command (measured with a payload).
    'a dependency npm hoisted beside Qwen is group-writable',
    (i) => {
      fs.writeFileSync(
        path.join(i.qwen, 'package.json'),
        JSON.stringify({
          name: '@qwen-code/qwen-code',
          version: '0.24.4',
          type: 'commonjs',
          optionalDependencies: { '@lydell/node-pty': '1.2.0-beta.10' },
        }),
      );
      const dep = path.join(i.root, 'node_modules', '@lydell', 'node-pty');
      fs.mkdirSync(dep, { recursive: true, mode: 0o755 });
      fs.writeFileSync(path.join(dep, 'index.js'), '// pty\n', { mode: 0o644 });
      fs.chmodSync(path.join(dep, 'index.js'), 0o664);
    },
    (i) => {
      const dep = path.join(i.root, 'node_modules', '@lydell', 'node-pty');
      return [
        `Qwen's install ${q(i.qwen)} has 1 entry writable by group or others, e.g. ${q(path.join(dep, 'index.js'))} (mode 664, in ${q(dep)}, a package Qwen imports); whoever can write them changes what Qwen runs, hooks included; fix: chmod -R go-w '${i.qwen}' '${dep}'`,
      ];
    },
  ],
  [
    // The linked file is root's, but anyone may rename another over it in its directory.
    "a chunk of Qwen's package is a link into a directory anyone may write",
    (i) => {
      const outside = path.join(i.root, 'outside');
      fs.mkdirSync(outside, { mode: 0o755 });
      fs.chmodSync(outside, 0o777);
      fs.renameSync(path.join(i.qwen, 'chunks', 'chunk-A.js'), path.join(outside, 'chunk-A.js'));
      fs.symlinkSync(path.join(outside, 'chunk-A.js'), path.join(i.qwen, 'chunks', 'chunk-A.js'));
    },
    (i) => [
      `the link ${q(path.join(i.qwen, 'chunks', 'chunk-A.js'))} of Qwen's install ${q(i.qwen)} leads to what Qwen loads, but ${q(path.join(i.root, 'outside'))} is a directory writable by group or others (mode 0777); fix: chmod go-w '${path.join(i.root, 'outside')}'`,
    ],
  ],
  [
    'the pinned Qwen is an unsupported version',
    (i) =>
      fs.writeFileSync(
        path.join(i.qwen, 'package.json'),
        JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.25.0', type: 'commonjs' }),
      ),
    (i) => [
      `Qwen 0.25.0 at ${q(i.qwen)} is not a version this toolkit supports (${SUPPORTED}); pin a supported Qwen or upgrade qwen-managed`,
    ],
  ],
  [
    // Issue 28: the launcher started Qwen 0.24.4 on a Node older than its engines allow.
    "the pinned node is older than the Qwen package's engines.node",
    (i) =>
      fs.writeFileSync(
        path.join(i.qwen, 'package.json'),
        JSON.stringify({
          name: '@qwen-code/qwen-code',
          version: '0.24.4',
          type: 'commonjs',
          engines: { node: '>=99.0.0' },
        }),
      ),
    (i) => [
      `node ${q(i.node)} is ${spawnSync(runner, ['--version'], { encoding: 'utf8' }).stdout.trim()}, but Qwen 0.24.4 at ${q(i.qwen)} declares engines.node ">=99.0.0": it cannot start on it; fix: pin a Node that satisfies ">=99.0.0" (docs/admin.md, "Installing Qwen for a deployment")`,
    ],
  ],
];

describe('one set of host checks: verify on the real install and the launcher report the same problems', () => {
  it('control: the untouched install passes verify and the launcher starts Qwen', async () => {
    const i = renderInstall();
    const v = verify(i);
    expect([v.code, v.ok, v.problems], v.failed('host.install').join('\n')).toEqual([0, true, []]);
    expect(v.report.checks.filter((c) => c.id === 'host.install').map((c) => c.ok)).toEqual([true]);
    const l = await launch(i);
    expect([l.code, l.problems, l.started]).toEqual([0, [], true]);
  });

  it.each(ROWS)('%s', async (_name, mutate, problems) => {
    const i = renderInstall();
    mutate(i);
    const expected = problems(i);
    const v = verify(i);
    expect([v.code, v.ok, v.problems]).toEqual([1, false, expected]);
    const l = await launch(i);
    expect([l.code, l.problems, l.started], l.output).toEqual([1, expected, false]);
  });
});

describe('a Qwen downgraded in place below a managed setting', () => {
  // Added after 0.24.0: render (with 0.24.4 here) takes it and lists 0.24.0 as missing it.
  const LATER_ONLY = { tools: { workflowNameOnly: true } };
  const downgrade = (i: Install) =>
    fs.writeFileSync(
      path.join(i.qwen, 'package.json'),
      JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.24.0', type: 'commonjs' }),
    );

  it('control: with the 0.24.4 it was rendered for, verify passes and the launcher starts Qwen', async () => {
    const i = renderInstall(LATER_ONLY);
    expect(verify(i).ok).toBe(true);
    const l = await launch(i);
    expect([l.code, l.problems, l.started]).toEqual([0, [], true]);
  });

  it('verify and the launcher refuse it with the same line; verify names the setting', async () => {
    const i = renderInstall(LATER_ONLY);
    downgrade(i);
    const expected = [
      `Qwen 0.24.0 at ${q(i.qwen)} would ignore managed settings it does not know (rendered into this profile's system settings); pin a Qwen that has them, or remove them from deployment.json and re-render (qwen-managed verify names them: settings.qwen)`,
    ];
    const v = verify(i);
    expect([v.code, v.ok, v.problems]).toEqual([1, false, expected]);
    expect(v.failed('settings.qwen')).toEqual([
      expect.stringMatching(
        /^settings\.tools\.workflowNameOnly = true: is not a Qwen Code 0\.24\.0 setting\./,
      ),
    ]);
    const l = await launch(i);
    expect([l.code, l.problems, l.started], l.output).toEqual([1, expected, false]);
  });
});

describe('verify on the real install: what the launcher does not refuse', () => {
  it('a vendored ripgrep without its execute bit (Qwen 0.24.4 from the registry) is a warning with the fix', async () => {
    const i = renderInstall();
    const rg = path.join(i.qwen, 'vendor', 'ripgrep', `${process.arch}-${process.platform}`, 'rg');
    fs.mkdirSync(path.dirname(rg), { recursive: true, mode: 0o755 });
    fs.writeFileSync(rg, '', { mode: 0o644 });
    const v = verify(i);
    expect(v.ok).toBe(true);
    expect(v.report.checks.filter((c) => c.id === 'host.ripgrep')).toEqual([
      {
        id: 'host.ripgrep',
        severity: 'warning',
        ok: false,
        profile: null,
        file: null,
        message: `Qwen's vendored ripgrep ${q(rg)} is not executable by everyone (mode 644), so every Qwen start prints "Ripgrep not available" and searches with its slower built-in grep (a packaging defect of Qwen 0.24.4 from the registry); fix: chmod a+x '${rg}'`,
      },
    ]);
    // Negative control: after the fix, the check passes.
    fs.chmodSync(rg, 0o755);
    expect(
      verify(i)
        .report.checks.filter((c) => c.id === 'host.ripgrep')
        .map((c) => c.ok),
    ).toEqual([true]);
    // And the launcher starts Qwen either way.
    expect((await launch(i)).started).toBe(true);
  });

  it('a staged tree (render --out) keeps warnings for what does not exist yet, and runs no launcher check', () => {
    const i = renderInstall();
    const staged = path.join(i.root, 'staged');
    fs.cpSync(i.install, staged, { recursive: true });
    fs.rmSync(i.node);
    fs.rmSync(i.token);
    const v = verify({ ...i, install: staged });
    expect(v.ok).toBe(true);
    expect(v.report.checks.filter((c) => c.id === 'host.install')).toEqual([]);
    expect(
      v.report.checks.filter((c) => c.id === 'host.pins' && !c.ok).map((c) => [c.severity, c.message]),
    ).toEqual([
      [
        'warning',
        `credential file of CONTEXT_API_TOKEN ${q(i.token)} does not exist on this machine (fine for a staged tree; the launcher refuses to start until it does)`,
      ],
      [
        'warning',
        `node ${q(i.node)} does not exist on this machine (fine for a staged tree; the launcher refuses to start until it does)`,
      ],
    ]);
  });
});

/** `qwen-managed plan` on the install, as the administrator: its exit and its `plan: ` lines. */
function plan(i: Install) {
  const run = spawnSync(process.execPath, [CLI, 'plan', '--dir', i.install, '--profile', 'on-demand'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const problems = run.stderr
    .split('\n')
    .filter((line) => line.startsWith('qwen-managed: plan: '))
    .map((line) => line.slice('qwen-managed: plan: '.length));
  return { code: run.status, problems, stdout: run.stdout };
}

// plan printed "the launcher would start Qwen" (exit 0) for a tree whose files are not the ones render
// wrote, which the launcher refuses before anything else: the checksums do not depend on where the
// tree lies or on owners and modes, so plan judges them with the launcher's own function.
const FILE_ROWS: Row[] = [
  [
    'launch.json edited after render (an inherited name added)',
    (i) => {
      const f = file(i, 'profiles/on-demand/launch.json');
      fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('"TERM"', '"TERM","LANGUAGE"'));
    },
    (i) => [
      `${q(file(i, 'profiles/on-demand/launch.json'))} does not match its sha256 in manifest.json (changed after render); re-render`,
    ],
  ],
  [
    'the managed system settings edited after render (hooks turned off)',
    (i) => {
      const f = file(i, 'profiles/on-demand/system-settings.json');
      const settings = JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(f, JSON.stringify({ ...settings, disableAllHooks: true }));
    },
    (i) => [
      `${q(file(i, 'profiles/on-demand/system-settings.json'))} does not match its sha256 in manifest.json (changed after render); restore it or re-render`,
    ],
  ],
  [
    // Same bytes, root's, in a directory only root may write: verify called it irregular, the launcher started.
    'a runtime replaced by a link to a copy of itself',
    (i) => {
      const copy = path.join(i.root, 'approval-guard.js');
      fs.copyFileSync(file(i, 'runtime/approval-guard.js'), copy);
      fs.rmSync(file(i, 'runtime/approval-guard.js'));
      fs.symlinkSync(copy, file(i, 'runtime/approval-guard.js'));
    },
    (i) => [
      `${q(file(i, 'runtime/approval-guard.js'))} is a symbolic link, not the file render wrote (an install holds no links); restore it or re-render the deployment`,
    ],
  ],
  [
    'a runtime removed',
    (i) => fs.rmSync(file(i, 'runtime/approval-guard.js')),
    (i) => [`${q(file(i, 'runtime/approval-guard.js'))} is missing; restore it or re-render the deployment`],
  ],
];

describe('plan refuses the files the launcher refuses, with the same line', () => {
  it('control: the untouched install is planned (exit 0) and the launcher starts Qwen', async () => {
    const i = renderInstall();
    const p = plan(i);
    expect([p.code, p.problems]).toEqual([0, []]);
    expect(p.stdout).toContain('the launcher would start Qwen');
  });

  it.each(FILE_ROWS)('%s', async (_name, mutate, problems) => {
    const i = renderInstall();
    mutate(i);
    const expected = problems(i);
    const p = plan(i);
    expect([p.code, p.problems], p.stdout).toEqual([1, expected]);
    const v = verify(i);
    expect([v.code, v.problems]).toEqual([1, expected]);
    const l = await launch(i);
    expect([l.code, l.problems, l.started], l.output).toEqual([1, expected, false]);
  });
});

/** `qwen-managed status` on the install, as the administrator: its exit and stderr. */
function status(i: Install) {
  const run = spawnSync(process.execPath, [CLI, 'status', '--dir', i.install, '--profile', 'on-demand'], {
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { code: run.status, stderr: run.stderr };
}

/** Puts a UTF-8 byte order mark before `rel`; with `rehash`, records its new sha256 in manifest.json. */
function withBom(i: Install, rel: string, rehash: boolean): void {
  const f = file(i, rel);
  fs.writeFileSync(f, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(f)]));
  if (!rehash) return;
  const manifest = JSON.parse(fs.readFileSync(file(i, 'manifest.json'), 'utf8')) as {
    files: Record<string, { sha256: string }>;
  };
  manifest.files[rel]!.sha256 = createHash('sha256').update(fs.readFileSync(f)).digest('hex');
  fs.writeFileSync(file(i, 'manifest.json'), JSON.stringify(manifest));
}

// The launcher decoded manifest.json and launch.json with TextDecoder, which drops a byte order mark,
// while verify reads the bytes as they are: verify called the tree broken, the launcher started Qwen
// from it, and status died with exit 70 (measured). One reading now: a byte order mark is not JSON.
describe('a byte order mark before manifest.json or launch.json: one verdict', () => {
  it.each<[string, string, boolean, string]>([
    ['manifest.json', 'manifest.json', false, 'manifest'],
    ['launch.json (its sha256 recorded again)', 'profiles/on-demand/launch.json', true, 'launch.schema'],
  ])('%s', async (_name, rel, rehash, verifyId) => {
    const i = renderInstall();
    withBom(i, rel, rehash);
    const expected = [
      `${q(file(i, rel))} is not valid JSON (it starts with a byte order mark, which render never writes); re-render the deployment`,
    ];
    const v = verify(i);
    expect([v.code, v.failed(verifyId).length > 0]).toEqual([1, true]);
    const p = plan(i);
    expect([p.code, p.problems]).toEqual([1, expected]);
    const s = status(i);
    expect([s.code, s.stderr.trim()]).toEqual([1, `qwen-managed: status: ${expected[0]}`]);
    const l = await launch(i);
    expect([l.code, l.problems, l.started], l.output).toEqual([1, expected, false]);
  });
});
