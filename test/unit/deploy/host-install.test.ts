// verify on the real install (the tree at its plans' installDir) against the same tree staged
// elsewhere: the launcher's host checks (host.install) judge the real one, so a missing pin is an
// error there and a warning on the staged copy; and host.ripgrep's rule as a table.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCredentials } from '../../../launcher/read-credentials.js';
import type { LaunchPlan } from '../../../src/contracts/launch-plan.js';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { checkRipgrep } from '../../../src/deploy/verify/checks/qwen-tree.js';
import { Checks } from '../../../src/deploy/verify/report.js';
import { credentialContentProblems } from '../../../src/host/install-checks.js';
import { SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import { allProfilesRaw, renderToDir, tempDir, verifyInstall } from './fixtures.js';

/** The supported list as the refusal names it (policies/qwen/versions.json is its one home). */
const SUPPORTED = SUPPORTED_QWEN_VERSIONS.join(', ');

/** An all-profiles install rendered into its own installDir, with node, Qwen and the credentials here. */
async function realInstall() {
  const root = await tempDir('qm-host-install-');
  await fs.chmod(root, 0o755);
  const node = path.join(root, 'node');
  // This Node, answering --version as the Node 22 a deployment pins.
  await fs.writeFile(
    node,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v22.23.3; exit 0; fi\nexec '${process.execPath}' "$@"\n`,
    { mode: 0o755 },
  );
  const qwen = path.join(root, 'qwen');
  await fs.mkdir(qwen, { mode: 0o755 });
  const cli = path.join(qwen, 'cli.js');
  await fs.writeFile(cli, '', { mode: 0o644 });
  await fs.writeFile(
    path.join(qwen, 'package.json'),
    JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.24.3' }),
    { mode: 0o644 },
  );
  const repo = path.join(root, 'repo');
  await fs.mkdir(repo, { mode: 0o755 });
  const token = path.join(root, 'context.token');
  await fs.writeFile(token, 'x\n', { mode: 0o640 });
  const install = path.join(root, 'install');
  const raw = await allProfilesRaw();
  Object.assign(raw, { installDir: install, node, qwenCli: cli, repositoryRoot: repo });
  for (const source of Object.values(raw.credentials as Record<string, { file?: string }>))
    if (source.file !== undefined) source.file = token;
  await renderToDir(parseDeploymentValue(raw), install);
  return { root, install, node, cli, token, raw };
}

const failing = (checks: Awaited<ReturnType<typeof verifyInstall>>['checks'], ids: string[]) =>
  checks.filter((c) => ids.includes(c.id) && !c.ok).map((c) => [c.id, c.severity, c.message]);

// Render deletes nothing outside the tree: a credential file an earlier render routed stays readable
// as before. verify finds those still on disk from the launch plans backups/ keeps, on the real install.
// Negative control (by hand): before staleCredentialFiles, the moved token's old file got no line.
describe('verify: a credential file an earlier render routed and the tree no longer does', () => {
  it('is a warning while it is on disk, and gone with it', async () => {
    const { install, token, raw, root } = await realInstall();
    const moved = path.join(root, 'moved.token');
    await fs.writeFile(moved, 'x\n', { mode: 0o640 });
    for (const source of Object.values(raw.credentials as Record<string, { file?: string }>))
      if (source.file !== undefined) source.file = moved;
    await renderToDir(parseDeploymentValue(raw), install);
    const stale = (await verifyInstall(install)).checks.filter((c) => c.id === 'host.credentials.stale');
    expect(stale.map((c) => [c.severity, c.ok, c.message])).toEqual([
      [
        'warning',
        false,
        `credential file ${token} (CONTEXT_API_TOKEN, MEM0_API_KEY) is no longer used by deployment.json but is still on disk, readable as before: render never deletes files outside the install tree. Fix: delete it if nothing else uses it (and rotate the secret if it should no longer be readable by those who could read it)`,
      ],
    ]);
    await fs.rm(token);
    const after = (await verifyInstall(install)).checks.filter((c) => c.id === 'host.credentials.stale');
    expect(after.map((c) => [c.severity, c.ok])).toEqual([['warning', true]]);
  });
});

describe('verify: the real install runs the launcher checks, a staged tree keeps its warnings', () => {
  it('a clean real install: host.install passes for every profile, host.pins adds no line', async () => {
    const { install } = await realInstall();
    const report = await verifyInstall(install);
    expect(failing(report.checks, ['host.install', 'host.pins', 'host.qwen'])).toEqual([]);
    expect(report.checks.filter((c) => c.id === 'host.install').map((c) => c.ok)).toEqual([true]);
    expect(report.checks.filter((c) => c.id === 'host.pins' || c.id === 'host.qwen')).toEqual([]);
  });

  it.each<
    [
      string,
      (i: Awaited<ReturnType<typeof realInstall>>) => Promise<void>,
      (i: Awaited<ReturnType<typeof realInstall>>) => string[],
    ]
  >([
    [
      'a missing node',
      (i) => fs.rm(i.node),
      (i) => [
        `node ${JSON.stringify(i.node)} does not exist; fix: install Node 22 there, or name where it is in deployment.json "node" and render again`,
      ],
    ],
    [
      'a missing Qwen',
      (i) => fs.rm(i.cli),
      (i) => [
        `Qwen cli ${JSON.stringify(i.cli)} does not exist; fix: install Qwen (docs/admin.md, "Installing Qwen for a deployment") there, or name where it is in deployment.json "qwenCli" and render again`,
      ],
    ],
    [
      // One line per credential name routed from it (every profile judged, lines deduplicated).
      'a missing credential file',
      (i) => fs.rm(i.token),
      (i) =>
        ['CONTEXT_API_TOKEN', 'MEM0_API_KEY'].map(
          (name) =>
            `credential file of ${name} ${JSON.stringify(i.token)} does not exist; fix: write the secret into it (owned by root, readable by the developers only), or name the file that holds it in deployment.json credentials.${name} and render again`,
        ),
    ],
    // Negative control (by hand): before credentialContentProblems verify only stat'ed these
    // files and passed (exit 0) while the launcher refused every start.
    [
      'an empty credential file',
      (i) => fs.writeFile(i.token, '\n'),
      (i) =>
        ['CONTEXT_API_TOKEN', 'MEM0_API_KEY'].map(
          (name) =>
            `credential file of ${name} ${JSON.stringify(i.token)} is empty, so the launcher refuses every start; write the secret into it (one line)`,
        ),
    ],
    [
      'a credential file holding a NUL byte (the value is never printed)',
      (i) => fs.writeFile(i.token, 'sk-LEAK\0x\n'),
      (i) =>
        ['CONTEXT_API_TOKEN', 'MEM0_API_KEY'].map(
          (name) =>
            `credential file of ${name} ${JSON.stringify(i.token)} holds a NUL byte, which the environment cannot carry, so the launcher refuses every start; write only the secret into it`,
        ),
    ],
    [
      // Negative control (by hand): without the line-break rule verify passed and every request failed.
      'a credential file whose secret spans two lines (the value is never printed)',
      (i) => fs.writeFile(i.token, 'sk-LEAK-one\nsk-LEAK-two\n'),
      (i) =>
        ['CONTEXT_API_TOKEN', 'MEM0_API_KEY'].map(
          (name) =>
            `credential file of ${name} ${JSON.stringify(i.token)} holds a line break inside the secret, which no HTTP header can carry, so the launcher refuses every start; write only the secret, on one line, into it`,
        ),
    ],
    [
      'an unsupported Qwen',
      (i) =>
        fs.writeFile(
          path.join(path.dirname(i.cli), 'package.json'),
          JSON.stringify({ name: '@qwen-code/qwen-code', version: '0.24.1' }),
        ),
      (i) => [
        `Qwen 0.24.1 at ${JSON.stringify(path.dirname(i.cli))} is not a version this toolkit supports (${SUPPORTED}); pin a supported Qwen or upgrade qwen-managed`,
      ],
    ],
  ])('%s: an error on the real install (host.install), not a warning', async (_name, mutate, expected) => {
    const i = await realInstall();
    await mutate(i);
    const report = await verifyInstall(i.install);
    expect(report.ok).toBe(false);
    expect(JSON.stringify(report)).not.toContain('sk-LEAK');
    expect(failing(report.checks, ['host.install', 'host.pins', 'host.qwen'])).toEqual(
      expected(i).map((message) => ['host.install', 'error', message]),
    );
  });

  it('the same tree staged elsewhere: a missing node is a warning, and no launcher check runs', async () => {
    const i = await realInstall();
    const staged = path.join(i.root, 'staged');
    await fs.cp(i.install, staged, { recursive: true });
    await fs.rm(i.node);
    const report = await verifyInstall(staged);
    expect(report.ok).toBe(true);
    expect(failing(report.checks, ['host.install', 'host.pins'])).toEqual([
      [
        'host.pins',
        'warning',
        `node ${JSON.stringify(i.node)} does not exist on this machine (fine for a staged tree; the launcher refuses to start until it does)`,
      ],
    ]);
  });
});

describe('host.ripgrep', () => {
  const RG = '/opt/qwen/lib/node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg';
  it.each<[string, number | null, Array<[boolean, string]>]>([
    ['executable by everyone', 0o755, [[true, 'error']]],
    ['absent (a platform without a vendored rg): nothing to say', null, []],
    ['as Qwen 0.24.4 ships it', 0o644, [[false, 'warning']]],
    ['executable by its owner only: developers still cannot run it', 0o744, [[false, 'warning']]],
  ])('%s', (_name, mode, expected) => {
    const checks = new Checks();
    checkRipgrep({ path: RG, mode }, checks);
    expect(checks.list.map((c) => [c.ok, c.severity])).toEqual(expected);
    for (const c of checks.list.filter((c) => !c.ok)) expect(c.message).toContain(`fix: chmod a+x '${RG}'`);
  });
});

describe('credential file content: verify and the launcher judge it with one reader', () => {
  const plan = {
    platform: 'posix',
    credentials: { TOKEN: { file: '/etc/qwen-managed/t' } },
    externalContext: { credentials: [] },
  } as unknown as LaunchPlan;
  it.each<[string, boolean]>([
    ['', false],
    ['\n', false],
    ['\r\n', false],
    ['a\0b\n', false],
    ['\0', false],
    ['secret\n', true],
    ['secret\r\n', true],
    ['secret', true],
    // A line break inside the secret: no HTTP header carries it, so neither starts.
    ['two\nlines\n', false],
    ['two\r\nlines', false],
    ['a\rb\n', false],
  ])('%j: usable %s by both', (content, usable) => {
    const readFileSync = () => new TextEncoder().encode(content);
    const verifyProblems = credentialContentProblems(plan, true, { readFileSync });
    const launches = (() => {
      try {
        readCredentials(plan, {
          externalContextActive: true,
          callerEnv: {},
          platform: 'posix',
          readFile: () => content,
        });
        return true;
      } catch {
        return false;
      }
    })();
    expect({ verify: verifyProblems.length === 0, launcher: launches }).toEqual({
      verify: usable,
      launcher: usable,
    });
  });
});
