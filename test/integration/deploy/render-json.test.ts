// `qwen-managed render --json` as configuration management reads it (the Ansible role decides
// `changed` from it): the built CLI, real processes, real trees. stdout is the JSON result alone.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runtimeFileNames } from '../../../src/contracts/layout.js';
import { REPO, tempDir } from '../../unit/deploy/fixtures.js';

const CLI = path.join(REPO, 'dist', 'cli', 'qwen-managed.js');
const ALL_PROFILES = path.join(REPO, 'test', 'fixtures', 'deploy', 'all-profiles.json');

function run(args: string[], cwd = REPO) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `render --json` and parses stdout as a whole: a stray progress line would fail the parse. */
function renderJson(deployment: string, out: string, ...extra: string[]) {
  const result = run(['render', '--deployment', deployment, '--out', out, '--json', ...extra]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

/** Every runtime file render installs (one list: src/contracts/layout.ts). */
const RUNTIME = runtimeFileNames().map((name) => `runtime/${name}`);
const PROFILE_FILES = {
  'on-demand': [
    'external-context.json',
    'launch.json',
    'mcp.json',
    'system-defaults.json',
    'system-settings.json',
    'trusted-folders.json',
  ],
  'auto-recall': [
    'external-context.json',
    'launch.json',
    'system-defaults.json',
    'system-settings.json',
    'trusted-folders.json',
  ],
  write: [
    'external-context.json',
    'launch.json',
    'mcp.json',
    'system-defaults.json',
    'system-settings.json',
    'trusted-folders.json',
  ],
};
const profileFiles = (kind: keyof typeof PROFILE_FILES) =>
  PROFILE_FILES[kind].map((file) => `profiles/${kind}/${file}`);
const ALL_FILES = [
  'bin/launch-qwen',
  'manifest.json',
  ...profileFiles('auto-recall'),
  ...profileFiles('on-demand'),
  ...profileFiles('write'),
  ...RUNTIME,
].sort();

async function deploymentFile(dir: string, edit: (raw: Record<string, any>) => void): Promise<string> {
  const raw = JSON.parse(await fs.readFile(ALL_PROFILES, 'utf8'));
  edit(raw);
  const file = path.join(dir, 'deployment.json');
  await fs.writeFile(file, JSON.stringify(raw, null, 2));
  return file;
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
});

describe('render --json: files written, unchanged, retired', () => {
  it('write → unchanged → changed file → retired profile → rolled back, each reported exactly', async () => {
    const dir = await tempDir();
    const out = path.join(dir, 'install');
    const deployment = await deploymentFile(dir, () => {});

    // 1. A fresh tree: every file written, nothing else.
    expect(renderJson(deployment, out)).toEqual({
      changed: true,
      dir: out,
      installDir: '/opt/qwen-managed',
      deployment,
      written: ALL_FILES,
      unchanged: [],
      retired: [],
      backupDir: null,
      profiles: { 'auto-recall': 'active', 'on-demand': 'active', write: 'active' },
      notices: [],
    });

    // 2. The same input again: nothing changes, so configuration management reports ok, not changed.
    expect(renderJson(deployment, out)).toMatchObject({
      changed: false,
      written: [],
      unchanged: ALL_FILES,
      retired: [],
      backupDir: null,
    });

    // 3. One profile's provider timeout changes: exactly its provider config and the manifest.
    await deploymentFile(dir, (raw) => {
      raw.profiles['auto-recall'].timeoutMs = 1200;
    });
    const changed = renderJson(deployment, out);
    expect(changed).toMatchObject({
      changed: true,
      written: ['manifest.json', 'profiles/auto-recall/external-context.json'],
      unchanged: ALL_FILES.filter(
        (f) => f !== 'manifest.json' && f !== 'profiles/auto-recall/external-context.json',
      ),
      retired: [],
    });
    expect(changed['backupDir']).toMatch(/^backups\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z(-\d+)?$/);
    expect(existsSync(path.join(out, changed['backupDir'] as string, 'manifest.json'))).toBe(true);

    // 4. A profile removed from deployment.json: its files retired to backups/, never deleted.
    await deploymentFile(dir, (raw) => {
      raw.profiles['auto-recall'].timeoutMs = 1200;
      delete raw.profiles.write;
      delete raw.credentials.MEM0_API_KEY;
      raw.credentials.OPENAI_API_KEY.profiles = ['on-demand', 'auto-recall'];
    });
    const retired = renderJson(deployment, out);
    expect(retired).toMatchObject({
      changed: true,
      written: ['manifest.json'],
      retired: profileFiles('write'),
      profiles: { 'auto-recall': 'active', 'on-demand': 'active' },
      notices: ['profile write: removed from deployment.json; its files are retired to backups/'],
    });
    for (const file of profileFiles('write')) {
      expect(existsSync(path.join(out, file))).toBe(false);
      expect(existsSync(path.join(out, retired['backupDir'] as string, file))).toBe(true);
    }
    // And retiring is done once: the next run is unchanged.
    expect(renderJson(deployment, out)).toMatchObject({ changed: false, written: [], retired: [] });

    // 5. A rolled-back profile stays rolled back through a routine render, which changes nothing.
    expect(run(['rollback', '--dir', out, '--profile', 'auto-recall']).code).toBe(0);
    expect(renderJson(deployment, out)).toMatchObject({
      changed: false,
      written: [],
      profiles: { 'auto-recall': 'rolled-back', 'on-demand': 'active' },
      notices: [expect.stringMatching(/^profile auto-recall: stays rolled back/)],
    });
    expect(renderJson(deployment, out, '--reactivate')).toMatchObject({
      changed: true,
      profiles: { 'auto-recall': 'active', 'on-demand': 'active' },
      notices: ['profile auto-recall: re-activated (was rolled back)'],
    });

    // 6. A rendered file edited by hand: written again, and the notice says where the edit is kept.
    const hand = 'profiles/on-demand/trusted-folders.json';
    await fs.writeFile(path.join(out, hand), '{}\n');
    const overwritten = renderJson(deployment, out);
    expect(overwritten).toMatchObject({ changed: true, written: [hand] });
    expect(overwritten['notices']).toEqual([
      `${hand} was edited after the last render (it is not the file manifest.json lists); render wrote it again, and the edited version is kept in ${overwritten['backupDir']}/${hand}. Fix: carry the change over into deployment.json if it should stay`,
    ]);

    // 7. A file put into the tree by hand: retired to backups/, and the notice names it.
    await fs.writeFile(path.join(out, 'profiles', 'notes.txt'), 'mine\n');
    const moved = renderJson(deployment, out);
    expect(moved).toMatchObject({ changed: true, retired: ['profiles/notes.txt'] });
    expect(moved['notices']).toEqual([
      `profiles/notes.txt was not written by render (manifest.json does not list it); it is moved to ${moved['backupDir']}/profiles/notes.txt. Fix: keep files of your own outside installDir`,
    ]);
  });

  // Render deletes nothing outside the tree: a credential file the deployment stopped naming (a provider
  // renamed, a credential moved) stays readable by whoever could read it, and render says so once.
  // Negative control (by hand): before droppedCredentialNotices, the second render's notices were [].
  it('a credential file an earlier render routed and this one does not: named while it is on disk', async () => {
    const dir = await tempDir('qm-render-json-');
    const out = path.join(dir, 'out');
    const old = path.join(dir, 'old-context.token');
    await fs.writeFile(old, 'secret\n', { mode: 0o640 });
    const at = (file: string) => (raw: Record<string, any>) =>
      (raw.credentials.CONTEXT_API_TOKEN.file = file);
    expect(renderJson(await deploymentFile(dir, at(old)), out)['notices']).toEqual([]);
    const moved = renderJson(await deploymentFile(dir, at(path.join(dir, 'new-context.token'))), out);
    expect(moved['notices']).toEqual([
      `credential file ${old} (CONTEXT_API_TOKEN) is no longer used by deployment.json but is still on disk, readable as before: render never deletes files outside the install tree. Fix: delete it if nothing else uses it (and rotate the secret if it should no longer be readable by those who could read it)`,
    ]);
    // Gone from disk, nothing to say; and the render after the move compares with the moved tree.
    await fs.rm(old);
    expect(renderJson(await deploymentFile(dir, at(old)), out)['notices']).toEqual([]);
    expect(
      renderJson(await deploymentFile(dir, at(path.join(dir, 'new-context.token'))), out)['notices'],
    ).toEqual([]);
  });

  it.each([
    {
      name: 'a refused deployment',
      code: 1,
      message: /^qwen-managed: render: refused: .*\n {2}- node = "node": is not an absolute posix path/,
      args: async (dir: string) => ['--deployment', await deploymentFile(dir, (raw) => (raw.node = 'node'))],
    },
    {
      name: 'an unreadable deployment',
      code: 1,
      message: /^qwen-managed: render: cannot read --deployment .*missing\.json\n$/,
      args: async (dir: string) => ['--deployment', path.join(dir, 'missing.json')],
    },
    {
      name: 'a usage error',
      code: 2,
      message: /Unknown option '--frobnicate'/,
      args: async () => ['--deployment', ALL_PROFILES, '--frobnicate'],
    },
  ])(
    '$name: stdout stays empty, the error is text on stderr, exit $code',
    async ({ code, message, args }) => {
      const dir = await tempDir();
      const result = run(['render', ...(await args(dir)), '--out', path.join(dir, 'install'), '--json']);
      expect(result.code).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(existsSync(path.join(dir, 'install'))).toBe(false);
    },
  );
});
