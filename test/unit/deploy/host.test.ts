import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDeploymentValue } from '../../../src/deploy/deployment/parse.js';
import { writeQwenPackage } from '../../fixtures/qwen-package.js';
import { allProfilesRaw, example, renderToDir, tempDir, verifyInstall } from './fixtures.js';

/** A deployment whose pins exist on this machine, in a temp folder with chosen modes. */
async function installWithPins(modes: {
  node?: number;
  credential?: number | null;
  nodeVersion?: string;
  /** chown the credential file to this uid (tests run as root). */
  credentialOwner?: number;
  /** Pin cli.js inside a Qwen 0.24.4 package declaring engines.node ">=22.0.0". */
  qwenPackage?: boolean;
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
  const cli =
    modes.qwenPackage === true
      ? path.join(await writeQwenPackage(path.join(root, 'qwen'), '0.24.4', '>=22.0.0'), 'cli.js')
      : path.join(root, 'cli.js');
  if (modes.qwenPackage !== true) await fs.writeFile(cli, '');
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

describe("verify: the pinned node satisfies the Qwen package's engines (a warning only where there is no package)", () => {
  it.each<[string, boolean, 'error' | 'warning' | undefined]>([
    ['v20.20.2', false, 'warning'],
    ['v21.7.3', false, 'warning'],
    ['v22.23.3', false, undefined],
    ['v24.1.0', false, undefined],
    // The issue 28 row: with the Qwen package to read, its engines make an old node an error.
    ['v20.20.2', true, 'error'],
    ['v22.23.3', true, undefined],
  ])('node %s, Qwen package here: %s → %s', async (nodeVersion, withPackage, severity) => {
    const checks = await installWithPins({ nodeVersion, qwenPackage: withPackage });
    const found = checks.find((c) => !c.ok && c.message.includes('engines.node'));
    const shown = (m: string) => m.replaceAll(/"\/[^"]*"/g, '"…"');
    expect(found === undefined ? undefined : [found.severity, shown(found.message)]).toEqual(
      severity === undefined
        ? undefined
        : severity === 'warning'
          ? [
              'warning',
              `node "…" is ${nodeVersion}; Qwen Code 0.24.4 declares engines.node ">=22.0.0" (no Qwen package here to read: render, verify and the launcher refuse it where there is one); pin a Node 22 binary`,
            ]
          : [
              'error',
              `node "…" is ${nodeVersion}, but Qwen 0.24.4 at "…" declares engines.node ">=22.0.0": it cannot start on it; fix: pin a Node that satisfies ">=22.0.0" (docs/admin.md, "Installing Qwen for a deployment")`,
            ],
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
