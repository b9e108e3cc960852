import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { allProfilesRaw, example, renderToDir, tempDir, verifyInstall } from './fixtures.js';

/** A deployment whose pins exist on this machine, in a temp folder with chosen modes. */
async function installWithPins(modes: {
  node?: number;
  credential?: number | null;
  nodeVersion?: string;
  /** chown the credential file to this uid (tests run as root). */
  credentialOwner?: number;
}) {
  const root = await tempDir('qm-host-');
  await fs.chmod(root, 0o755);
  // The pinned "node": this Node, answering --version as the Node version under test.
  const node = path.join(root, 'node');
  const version = modes.nodeVersion ?? 'v22.23.3';
  await fs.writeFile(
    node,
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo ${version}; exit 0; fi\nexec '${process.execPath}' "$@"\n`,
  );
  await fs.chmod(node, modes.node ?? 0o755);
  const cli = path.join(root, 'cli.js');
  await fs.writeFile(cli, '');
  await fs.chmod(cli, 0o644);
  const repo = path.join(root, 'repo');
  await fs.mkdir(repo);
  const token = path.join(root, 'context.token');
  if (modes.credential !== null) {
    await fs.writeFile(token, 'x\n');
    await fs.chmod(token, modes.credential ?? 0o640);
    if (modes.credentialOwner !== undefined) await fs.chown(token, modes.credentialOwner, 0);
  }
  const raw = await allProfilesRaw();
  Object.assign(raw, { node, qwenCli: cli, repositoryRoot: repo });
  (raw.credentials as any).CONTEXT_API_TOKEN.file = token;
  (raw.credentials as any).MEM0_API_KEY.file = token;
  const dir = await renderToDir(parseDeploymentValue(raw));
  const report = await verifyInstall(dir, { smoke: true, fallbackNode: '/nonexistent' });
  return report.checks.filter((c) => c.id === 'host.pins' || c.id === 'smoke');
}

describe('verify: the pinned files on this machine (real files and permissions)', () => {
  it('passes when node, Qwen, the repository and the credential are usable; smoke runs use the pinned node', async () => {
    const checks = await installWithPins({});
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    expect(checks.filter((c) => c.id === 'smoke' && c.ok).length).toBe(6);
  });

  it('fails on a group-writable node (the launcher refuses it)', async () => {
    const checks = await installWithPins({ node: 0o775 });
    expect(checks.find((c) => !c.ok && c.severity === 'error')?.message).toMatch(
      /node ".*" is writable by group or others \(mode 775\)/,
    );
  });

  it("fails on a pin owned by another user (the launcher's StrictModes refuses it)", async () => {
    const checks = await installWithPins({ credentialOwner: 4242 });
    const shown = (message: string) =>
      message.replace(/".*?"/, '"…"').replace(/'\/\S*\/context\.token'/, "'<token>'");
    expect(checks.filter((c) => !c.ok).map((c) => [c.severity, shown(c.message)])).toEqual([
      [
        'error',
        `credential file of CONTEXT_API_TOKEN, MEM0_API_KEY "…" is owned by uid 4242, not root; the launcher refuses it; fix: chown root '<token>'`,
      ],
    ]);
  });

  it('warns on a credential readable by every user, and on an absent one', async () => {
    const readable = await installWithPins({ credential: 0o644 });
    expect(readable.filter((c) => !c.ok).map((c) => [c.severity, c.message.replace(/".*"/, '"…"')])).toEqual([
      [
        'warning',
        'credential file of CONTEXT_API_TOKEN, MEM0_API_KEY "…" is readable by every user on this machine (mode 644); prefer 0640 with a group',
      ],
    ]);
    const absent = await installWithPins({ credential: null });
    expect(absent.filter((c) => !c.ok).map((c) => c.severity)).toEqual(['warning']);
    expect(absent.find((c) => !c.ok)?.message).toContain('does not exist on this machine');
  });
});

describe('verify: the pinned node can start Qwen Code 0.24.4', () => {
  it.each<[string, boolean]>([
    ['v20.20.2', true],
    ['v21.7.3', true],
    ['v22.23.3', false],
    ['v24.1.0', false],
  ])('node %s → warning: %s', async (nodeVersion, warned) => {
    const checks = await installWithPins({ nodeVersion });
    const warning = checks.find((c) => !c.ok && c.message.includes('needs Node 22'));
    expect(
      warning === undefined ? undefined : [warning.severity, warning.message.replace(/".*"/, '"…"')],
    ).toEqual(
      warned
        ? [
            'warning',
            `node "…" is ${nodeVersion}; Qwen Code 0.24.4 needs Node 22 or newer (pin a Node 22 binary)`,
          ]
        : undefined,
    );
  });
});

describe('verify of a Windows deployment staged on this machine', () => {
  it('passes, skips the host checks, and warns that PowerShell resolution cannot be proven here', async () => {
    const dir = await renderToDir(await example('windows'));
    const report = await verifyInstall(dir);
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => !c.ok)).toEqual([
      expect.objectContaining({
        id: 'launch.windows',
        severity: 'warning',
        message: expect.stringContaining('user PowerShell profiles'),
      }),
    ]);
    expect(report.checks.some((c) => c.id === 'host.pins')).toBe(false);
  });
});
