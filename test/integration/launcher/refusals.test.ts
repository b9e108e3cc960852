// The built launcher, in a real pseudo-terminal, refusing before anything is started: arguments,
// pins and terminals. The stub "Qwen" must never run (no record file appears).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LaunchPlan } from '../../../src/contracts/launch-plan.js';
import { ARGUMENT_POLICY } from '../../../src/policy/policies.js';
import { buildInstallDir, type InstallFixture } from '../../fixtures/install-dir.js';
import { finished, launcherSuite, pinNode, readRecord, type Stub, writeStubQwen } from './harness.js';

const suite = launcherSuite('qm-launch-refusals-', 'refuse');
let node: string;
let counter = 0;

const CALLER_ENV = { TERM: 'xterm-256color', LANG: 'C.UTF-8', PATH: '/usr/bin:/bin', HOME: '/nonexistent' };

beforeAll(() => {
  node = pinNode(process.execPath, path.join(suite.base, 'node', 'node'));
});

interface Case {
  f: InstallFixture;
  stub: Stub;
}

function fixture(editPlan?: (plan: LaunchPlan) => LaunchPlan): Case {
  const root = path.join(suite.base, `f${counter++}`);
  fs.mkdirSync(root, { mode: 0o755 });
  const stub = writeStubQwen(root, {}, suite.user);
  const secrets = path.join(root, 'secrets');
  fs.mkdirSync(secrets, { mode: 0o755 });
  fs.writeFileSync(path.join(secrets, 'context.token'), 'tok-file\n', { mode: 0o644 });
  const f = buildInstallDir({
    root,
    launcherBundle: suite.bundle,
    node,
    qwenCli: stub.cli,
    profiles: ['on-demand', 'auto-recall'],
    credentials: { CONTEXT_API_TOKEN: { file: path.join(secrets, 'context.token') } },
    providerCredentials: ['CONTEXT_API_TOKEN'],
    ...(editPlan ? { editPlan } : {}),
  });
  return { f, stub };
}

function run(c: Case, args: string[], argvOverride?: [string, ...string[]]) {
  return finished(
    suite.sessions.start(argvOverride ?? [c.f.shim, ...args], CALLER_ENV, suite.user, suite.base),
  );
}

describe('arguments (exit 2, the stub never runs)', () => {
  let shared: Case;
  beforeAll(() => {
    shared = fixture();
  });

  const table: Array<[string[], string]> = [
    [['-p', 'x'], '-p'],
    [['--prompt=x'], '--prompt=x'],
    [['-y'], '-y'],
    [['--yolo'], '--yolo'],
    [['--approval-mode=yolo'], '--approval-mode=yolo'],
    [['--acp'], '--acp'],
    [['serve'], 'serve'],
    [['--continue'], '--continue'],
    [['-r', 'id'], '-r'],
    [['--safe-mode'], '--safe-mode'],
    [['--bare'], '--bare'],
    [['--input-file', '/tmp/x'], '--input-file'],
    [['--json-fd', '3'], '--json-fd'],
    [['-i', 'hello'], '-i'],
    [['--'], '--'],
    [['hello'], 'hello'],
    [['--profile', 'on-demand', '--', '--yolo'], '--'],
    [['--profile', 'on-demand', 'fix it'], 'fix it'],
    [['--profile', 'on-demand', '--profile', 'auto-recall'], '--profile'],
    [['--profile=on-demand', '-y'], '-y'],
    [['--telemetry-otlp-endpoint=https://x'], '--telemetry-otlp-endpoint=https://x'],
    ...ARGUMENT_POLICY.refusedSubcommands
      .filter((s) => s !== 'serve')
      .map((s): [string[], string] => [[s], s]),
  ];

  it.each(table)('%j is refused naming %s', async (args, named) => {
    const { exit, output } = await run(shared, args);
    expect(exit.exitCode).toBe(2);
    expect(output).toContain(`launch-qwen: refused argument ${JSON.stringify(named)}: `);
    expect(output).toContain('usage: launch-qwen --profile <kind> (see launch-qwen --help)');
    expect(readRecord(shared.stub)).toBeUndefined();
  });

  it.each([
    [
      ['--profile', 'nonsense'],
      'launch-qwen: unknown profile kind "nonsense" (kinds: on-demand, auto-recall, write, openclaw-recall)',
    ],
    [[], 'launch-qwen: missing --profile <kind>'],
    [['--profile', 'write'], `launch-qwen: profile "write" is not deployed in `],
  ])('%j → exit 2 with %s', async (args, message) => {
    const { exit, output } = await run(shared, args);
    expect(exit.exitCode).toBe(2);
    expect(output).toContain(message);
    expect(readRecord(shared.stub)).toBeUndefined();
  });

  it('--help documents the exit codes and exits 0 without starting anything', async () => {
    const { exit, output } = await run(shared, ['--help']);
    expect(exit.exitCode).toBe(0);
    expect(output).toContain('Usage: launch-qwen --profile <kind>');
    expect(output).toContain('Exit codes:');
    expect(readRecord(shared.stub)).toBeUndefined();
  });

  it('--version prints the toolkit version', async () => {
    const version = JSON.parse(
      fs.readFileSync(path.join(import.meta.dirname, '../../../package.json'), 'utf8'),
    ).version;
    const { exit, output } = await run(shared, ['--version']);
    expect([exit.exitCode, output]).toEqual([0, `launch-qwen ${version}\n`]);
  });
});

describe('pins (exit 1, the stub never runs)', () => {
  const settings = (c: Case) => c.f.profileFile('on-demand', 'system-settings.json');

  it.each<[string, (c: Case) => void, (c: Case) => string, ((p: LaunchPlan) => LaunchPlan)?]>([
    [
      'a missing Qwen cli',
      (c) => fs.rmSync(c.stub.cli),
      (c) =>
        `launch-qwen: Qwen cli ${JSON.stringify(c.stub.cli)} does not exist; fix: install Qwen (docs/admin.md, "Installing Qwen for a deployment") there, or name where it is in deployment.json "qwenCli" and render again`,
    ],
    [
      'a relative pinned path',
      () => {},
      () => 'launch-qwen: node "bin/node" is not an absolute path; re-render the deployment',
      (p) => ({ ...p, node: 'bin/node' }),
    ],
    [
      'a checksum mismatch',
      (c) => fs.appendFileSync(settings(c), '\n'),
      (c) => `launch-qwen: ${JSON.stringify(settings(c))} does not match its sha256 in manifest.json`,
    ],
    [
      'a group-writable install file',
      (c) => fs.chmodSync(settings(c), 0o664),
      (c) =>
        `launch-qwen: ${JSON.stringify(settings(c))} is a file writable by group or others (mode 0664); fix: chmod go-w '${settings(c)}'`,
    ],
    [
      'a world-writable parent directory',
      (c) => fs.chmodSync(path.dirname(settings(c)), 0o777),
      (c) =>
        `launch-qwen: ${JSON.stringify(path.dirname(settings(c)))} is a directory writable by group or others (mode 0777); fix: chmod go-w '${path.dirname(settings(c))}'`,
    ],
    [
      'a group-writable Qwen cli',
      (c) => fs.chmodSync(c.stub.cli, 0o660),
      (c) => `launch-qwen: ${JSON.stringify(c.stub.cli)} is a file writable by group or others (mode 0660)`,
    ],
    [
      'an install file owned by another user',
      (c) => fs.chownSync(settings(c), suite.user.uid, suite.user.gid),
      (c) =>
        `launch-qwen: ${JSON.stringify(settings(c))} is owned by uid ${suite.user.uid}, not root; fix: chown root '${settings(c)}'`,
    ],
    [
      'a credential file owned by another user',
      (c) => fs.chownSync(path.join(c.f.root, 'secrets', 'context.token'), suite.user.uid, suite.user.gid),
      (c) =>
        `launch-qwen: ${JSON.stringify(path.join(c.f.root, 'secrets', 'context.token'))} is owned by uid ${suite.user.uid}, not root`,
    ],
    [
      'a launcher that is not the one rendered (moved install)',
      () => {},
      () => 'a moved or copied install is refused',
      (p) => ({ ...p, installDir: '/opt/somewhere-else' }),
    ],
  ])('refuses %s', async (_title, damage, message, editPlan) => {
    const c = fixture(editPlan);
    damage(c);
    const { exit, output } = await run(c, ['--profile', 'on-demand']);
    expect(exit.exitCode).toBe(1);
    expect(output).toContain(message(c));
    expect(readRecord(c.stub)).toBeUndefined();
    expect(fs.existsSync(path.join(suite.user.home, '.local'))).toBe(false);
  });
});

describe('terminal (exit 1, the stub never runs)', () => {
  const STDIN = 'launch-qwen: standard input is not a terminal';
  const STDOUT = 'launch-qwen: standard output is not a terminal';

  it('refuses when stdin is not a TTY', async () => {
    const c = fixture();
    const { exit, output } = await run(
      c,
      [],
      ['/bin/sh', '-c', 'exec "$0" "$@" </dev/null', c.f.shim, '--profile', 'on-demand'],
    );
    expect(exit.exitCode).toBe(1);
    expect(output).toContain(STDIN);
    expect(output).not.toContain(STDOUT);
    expect(readRecord(c.stub)).toBeUndefined();
  });

  it('refuses when stdout is not a TTY', async () => {
    const c = fixture();
    const { exit, output } = await run(
      c,
      [],
      ['/bin/sh', '-c', 'exec "$0" "$@" >/dev/null', c.f.shim, '--profile', 'on-demand'],
    );
    expect(exit.exitCode).toBe(1);
    expect(output).toContain(STDOUT);
    expect(output).not.toContain(STDIN);
    expect(readRecord(c.stub)).toBeUndefined();
  });

  it('refuses both without any terminal (pipes)', () => {
    const c = fixture();
    const result = spawnSync(c.f.shim, ['--profile', 'on-demand'], {
      env: CALLER_ENV,
      cwd: suite.base,
      uid: suite.user.uid,
      gid: suite.user.gid,
      encoding: 'utf8',
      input: 'a prompt on stdin\n',
      timeout: 15_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter((l) => l.startsWith('launch-qwen: standard'))).toHaveLength(2);
    expect(readRecord(c.stub)).toBeUndefined();
  });
});
