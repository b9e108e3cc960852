// `qwen-managed status` (the admin's /status) with the built CLI, against an install rendered for
// real into its installDir, for two throwaway developers: one in the group the credential file is
// readable by, one not. The second sees the credential refused, with the file that stops them; the
// first sees it reachable. Both see the same install, Qwen, Node, settings order, hooks and verify.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../../src/cli/commands/status.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { REPO } from '../../unit/deploy/fixtures.js';
import { ensureTestUser, removeTestUser, type TestUser } from '../launcher/harness.js';

const CLI = path.join(REPO, 'dist', 'cli', 'qwen-managed.js');

let work: string;
let install: string;
let token: string;
let reader: TestUser;
let outsider: TestUser;

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd: work,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'qm-status-'));
  await fs.chmod(work, 0o755);
  reader = ensureTestUser('status-reader', path.join(work, 'home-reader'));
  outsider = ensureTestUser('status-outsider', path.join(work, 'home-outsider'));
  const qwen = await writeQwenPackage(path.join(work, 'qwen'), '0.24.4');
  await fs.mkdir(path.join(work, 'repo'));
  await fs.mkdir(path.join(work, 'secrets'), { mode: 0o755 });
  token = path.join(work, 'secrets', 'context.token');
  await fs.writeFile(token, 'tok\n', { mode: 0o640 });
  // Readable by the reader's group only (and root, its owner).
  await fs.chown(token, 0, reader.gid);
  const deployment = JSON.parse(
    await fs.readFile(path.join(REPO, 'examples', 'deployments', 'auto-recall.json'), 'utf8'),
  );
  install = path.join(work, 'install');
  Object.assign(deployment, {
    installDir: install,
    node: process.execPath,
    qwenCli: path.join(qwen, 'cli.js'),
    repositoryRoot: path.join(work, 'repo'),
    developers: { users: [reader.name, outsider.name] },
    credentials: { CONTEXT_API_TOKEN: { file: token } },
  });
  deployment.environment.inherit = deployment.environment.inherit.filter(
    (n: string) => n !== 'OPENAI_API_KEY',
  );
  await fs.writeFile(path.join(work, 'deployment.json'), JSON.stringify(deployment));
  const rendered = cli(['render', '--deployment', 'deployment.json']);
  if (rendered.code !== 0) throw new Error(rendered.stderr);
}, 120_000);

afterAll(async () => {
  removeTestUser(reader);
  removeTestUser(outsider);
  await fs.rm(work, { recursive: true, force: true });
});

function status(user: TestUser): StatusReport {
  const result = cli(['status', '--dir', install, '--profile', 'auto-recall', '--user', user.name, '--json']);
  expect(result, result.stderr).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as StatusReport;
}

describe('qwen-managed status for two developers of one install', () => {
  it('the reader: the credential is reachable; the install, Qwen, Node, settings order, hooks and verify as rendered', () => {
    const r = status(reader);
    expect(r.install).toMatchObject({
      installDir: install,
      deploymentFile: path.join(work, 'deployment.json'),
    });
    expect([r.profile, r.state, r.user.name, r.user.home]).toEqual([
      'auto-recall',
      'active',
      reader.name,
      path.join(work, 'home-reader'),
    ]);
    expect(r.qwen).toMatchObject({ version: '0.24.4', supported: true });
    expect(r.node).toMatchObject({ path: process.execPath, version: process.version });
    // Qwen's merge order, lowest first, with the user's own Qwen home under their passwd home.
    expect(r.settings.map((s) => s.layer)).toEqual(['system defaults', 'user', 'workspace', 'system']);
    expect(
      r.settings[1]!.file.startsWith(path.join(work, 'home-reader', '.local', 'share', 'qwen-managed')),
    ).toBe(true);
    expect(r.settings[3]).toMatchObject({
      file: path.join(install, 'profiles', 'auto-recall', 'system-settings.json'),
      exists: true,
    });
    expect(r.hooks.map((h) => [h.event, h.name, h.from])).toEqual([
      ['UserPromptSubmit', 'external-context-auto-recall', 'system'],
      ['PreToolUse', 'managed-approval-guard', 'system'],
    ]);
    expect([r.mcpServers, r.mcpExcluded]).toEqual([[], ['external-context']]);
    expect(r.credentials).toEqual([
      {
        name: 'CONTEXT_API_TOKEN',
        source: 'file',
        file: token,
        reachable: true,
        detail: `readable by ${reader.name}`,
      },
    ]);
    expect(typeof r.verify.ok).toBe('boolean');
  });

  it('--json has the keys docs/admin.md lists, in that order', () => {
    const r = status(reader);
    expect(Object.keys(r)).toEqual([
      'dir',
      'profile',
      'state',
      'install',
      'user',
      'qwen',
      'node',
      'settings',
      'hooks',
      'mcpServers',
      'mcpExcluded',
      'credentials',
      'broker',
      'verify',
    ]);
    expect([r.install, r.user, r.qwen, r.node, r.verify].map((o) => Object.keys(o))).toEqual([
      ['installDir', 'toolkitVersion', 'deploymentFile', 'adminUid'],
      ['name', 'uid', 'home', 'groups'],
      ['cli', 'realPath', 'version', 'supported'],
      ['path', 'version', 'engines', 'satisfied'],
      ['ok', 'errors', 'warnings', 'passed', 'failed'],
    ]);
  });

  it('the outsider: the same install, and the credential refused with the file that stops them', () => {
    const r = status(outsider);
    expect(r.user.name).toBe(outsider.name);
    expect(r.credentials).toEqual([
      {
        name: 'CONTEXT_API_TOKEN',
        source: 'file',
        file: token,
        reachable: false,
        // Negative control (by hand): the detail ended at "so their launch fails", with no fix.
        detail: `not readable by ${outsider.name}: ${token} (mode 0640) stops them, so their launch fails; fix: let every developer read it (\`qwen-managed verify --dir ${install}\` names the chgrp and chmod)`,
      },
    ]);
    // verify agrees: the outsider is a declared developer who cannot read it.
    expect(r.verify.failed).toEqual(
      expect.arrayContaining([
        expect.stringMatching(`^\\[host\\.credentials\\] .*cannot be read by developer ${outsider.name}`),
      ]),
    );
  });

  it('prints one screen of text naming the same facts', () => {
    const result = cli(['status', '--dir', install, '--profile', 'auto-recall', '--user', outsider.name]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(result.stdout).toMatch(new RegExp(`^User: +${outsider.name} \\(uid ${outsider.uid};`, 'm'));
    expect(result.stdout).toMatch(/^Qwen: +0\.24\.4 \(supported\) at /m);
    expect(result.stdout).toMatch(
      /^ {2}4\. system +\S+\/profiles\/auto-recall\/system-settings\.json \(present\)/m,
    );
    expect(result.stdout).toMatch(/^ {2}FAIL CONTEXT_API_TOKEN: file \S+ — not readable by /m);
    expect(result.stdout).toMatch(/^Verify now: +(OK|FAILED) — \d+ violation\(s\)/m);
  });

  it('a credential path that is a directory is reachable by no one, whatever its modes', async () => {
    await fs.rename(token, `${token}.saved`);
    await fs.mkdir(token, { mode: 0o755 });
    try {
      for (const user of [reader, outsider])
        expect(status(user).credentials).toEqual([
          {
            name: 'CONTEXT_API_TOKEN',
            source: 'file',
            file: token,
            reachable: false,
            detail:
              'is a directory, so every launch fails; point credentials.CONTEXT_API_TOKEN of deployment.json at the file that holds the secret',
          },
        ]);
    } finally {
      await fs.rmdir(token);
      await fs.rename(`${token}.saved`, token);
    }
  });

  it('refuses an unknown user, a misspelt profile and a directory that is not an install', () => {
    expect(
      cli(['status', '--dir', install, '--profile', 'auto-recall', '--user', 'no-such-user-qm28']),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('status: --user no-such-user-qm28 is not an account on this machine'),
    });
    expect(cli(['status', '--dir', install, '--profile', 'autorecall'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('did you mean "auto-recall"?'),
    });
    // Only the kinds status takes are listed or suggested: not the OpenClaw one it refuses.
    expect(cli(['status', '--dir', install, '--profile', 'openclaw-recal'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'status: --profile: unknown profile kind "openclaw-recal" (kinds: on-demand, auto-recall, write)\n',
      ),
    });
    // OpenClaw's profile has no Qwen settings to show: status says where its decision is.
    expect(cli(['status', '--dir', install, '--profile', 'openclaw-recall'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        `status: --profile openclaw-recall: status shows Qwen's profiles; for OpenClaw run \`qwen-managed plan --dir ${install} --profile openclaw-recall\``,
      ),
    });
    expect(cli(['status', '--dir', work, '--profile', 'auto-recall'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('is not an install tree'),
    });
    // A tree staged for Windows: its users, homes and credential files are not this machine's.
    const windows = path.join(work, 'windows');
    expect(
      cli([
        'render',
        '--deployment',
        path.join(REPO, 'examples', 'deployments', 'windows.json'),
        '--out',
        windows,
      ]).code,
    ).toBe(0);
    expect(cli(['status', '--dir', windows, '--profile', 'on-demand'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `qwen-managed: status: ${windows} was rendered for windows (a staged \`render --out\`); this machine is posix. Fix: run status on a windows machine the tree is installed on (\`qwen-managed plan\` shows its launch from here)\n`,
    });
  });
});

// Negative control (by hand): before status looked at broker.json, a developer the broker refuses
// got "Credentials: none" and nothing else, while their launch stopped at "the credential broker
// refused you".
describe('qwen-managed status of a brokered install', () => {
  it('says whether the broker lets each developer in, and the fix for one it refuses', async () => {
    const deployment = JSON.parse(await fs.readFile(path.join(work, 'deployment.json'), 'utf8'));
    const brokered = path.join(work, 'brokered');
    Object.assign(deployment, {
      installDir: brokered,
      developers: { users: [reader.name] },
      broker: { user: 'qm-status-broker' },
    });
    await fs.writeFile(path.join(work, 'brokered.json'), JSON.stringify(deployment));
    const rendered = cli(['render', '--deployment', 'brokered.json']);
    expect(rendered.code, rendered.stderr).toBe(0);
    const of = (user: TestUser) => {
      const result = cli([
        'status',
        '--dir',
        brokered,
        '--profile',
        'auto-recall',
        '--user',
        user.name,
        '--json',
      ]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as StatusReport).broker;
    };
    expect(of(reader)).toEqual({
      user: 'qm-status-broker',
      allowed: true,
      detail: `${reader.name} may use the credential broker (named in broker.allow.users)`,
    });
    expect(of(outsider)).toEqual({
      user: 'qm-status-broker',
      allowed: false,
      detail: `${outsider.name} is not allowed to use the credential broker, so their launch fails; fix: add ${outsider.name} to "developers" (or "broker.allow", which defaults to it) in deployment.json and render again`,
    });
    const text = cli(['status', '--dir', brokered, '--profile', 'auto-recall', '--user', outsider.name]);
    expect(text.stdout).toMatch(/^Credentials: held by the credential broker \(user qm-status-broker\)$/m);
    expect(text.stdout).toMatch(new RegExp(`^Broker: +FAIL ${outsider.name} is not allowed`, 'm'));
    // Without a broker there is nothing to say.
    expect(status(reader).broker).toBeNull();
  });
});
