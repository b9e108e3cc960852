// The toolkit without the repository: `npm pack`, then `npm install -g ./qwen-managed-<version>.tgz`
// into a temporary prefix (no system-wide side effect), and the installed `qwen-managed` renders,
// verifies (smoke runs of its own bundled runtimes included) and rolls back an example from a
// directory that has nothing of the repository in it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCLAW_PLUGIN_BUNDLE } from '../../src/contracts/runtime-files.js';
import { requiredRuntimeFiles } from '../../src/deploy/render/render.js';
import { DEFAULT_QWEN_VERSION, SUPPORTED_QWEN_VERSIONS } from '../../src/qwen/versions.js';
import { REPO } from '../unit/deploy/fixtures.js';

const pkg = JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
let work = '';

function run(command: string, args: string[], cwd: string, env: Record<string, string | undefined>) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 240_000 });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(REPO, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(REPO, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

beforeAll(async () => {
  if (!existsSync(path.join(REPO, 'dist', 'cli', 'qwen-managed.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first');
  }
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'qm-fleet-tarball-'));
});

afterAll(async () => {
  if (work !== '') await fs.rm(work, { recursive: true, force: true });
});

describe('npm pack → npm install -g → a working qwen-managed', () => {
  let tarball = '';

  it('the tarball holds the CLI, every bundled runtime, templates, policies, schema, scripts/rollback — and no sources', async () => {
    const packed = run(
      'npm',
      ['pack', '--json', '--pack-destination', work, '--loglevel=error'],
      REPO,
      process.env,
    );
    expect(packed.code).toBe(0);
    const [entry] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = path.join(work, entry!.filename);
    expect(entry!.filename).toBe(`qwen-managed-${pkg.version}.tgz`);
    const expected = [
      'README.md',
      'package.json',
      'dist/cli/launch-qwen.js',
      'dist/cli/qwen-managed.js',
      ...requiredRuntimeFiles().map((f) => `dist/runtime/${f}`),
      // The OpenClaw plugin: render copies it when the deployment has an openclaw-recall profile.
      `dist/runtime/${OPENCLAW_PLUGIN_BUNDLE}`,
      'dist/runtime/package.json',
      ...(await filesUnder('templates')),
      ...(await filesUnder('policies')),
      ...(await filesUnder('schema')),
      'scripts/rollback',
    ].sort();
    expect(entry!.files.map((f) => f.path).sort()).toEqual(expected);
  });

  it('installs into a temporary prefix; render, verify and rollback work from a directory without the repository', async () => {
    const prefix = path.join(work, 'prefix');
    const install = run(
      'npm',
      ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--loglevel=error'],
      work,
      process.env,
    );
    expect(install, install.stderr).toMatchObject({ code: 0 });
    const installed = path.join(prefix, 'lib', 'node_modules', 'qwen-managed');
    const bin = path.join(prefix, 'bin', 'qwen-managed');
    expect(await fs.realpath(bin)).toBe(path.join(installed, 'dist', 'cli', 'qwen-managed.js'));
    // Both commands on the prefix's PATH, found the way a shell finds them.
    const onPath = (name: string) =>
      run('/bin/sh', ['-c', `command -v ${name}`], work, {
        PATH: `${path.join(prefix, 'bin')}:${path.dirname(process.execPath)}:/usr/bin:/bin`,
      }).stdout.trim();
    expect([onPath('qwen-managed'), onPath('launch-qwen')]).toEqual([
      bin,
      path.join(prefix, 'bin', 'launch-qwen'),
    ]);
    expect(await fs.realpath(onPath('launch-qwen'))).toBe(
      path.join(installed, 'dist', 'cli', 'launch-qwen.js'),
    );
    const launcher = run(onPath('launch-qwen'), ['--version'], work, {
      PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
    });
    expect(launcher, launcher.stderr).toMatchObject({ code: 0 });
    expect(launcher.stdout).toMatch(new RegExp(`^launch-qwen ${pkg.version.replaceAll('.', '\\.')}`));

    // Only this Node and the system directories on PATH; the working directory knows nothing of the repo.
    const site = path.join(work, 'site');
    await fs.mkdir(site);
    await fs.copyFile(
      path.join(REPO, 'examples', 'deployments', 'auto-recall.json'),
      path.join(site, 'deployment.json'),
    );
    const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: site };
    const cli = (...args: string[]) => run(bin, args, site, env);

    expect(cli('--version')).toEqual({
      code: 0,
      stdout: `qwen-managed ${pkg.version}\nQwen Code ${DEFAULT_QWEN_VERSION} (default); supported: ${SUPPORTED_QWEN_VERSIONS.join(', ')}\n`,
      stderr: '',
    });
    const render = cli('render', '--deployment', 'deployment.json', '--out', 'stage', '--json');
    expect(render, render.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(render.stdout)).toMatchObject({
      changed: true,
      profiles: { 'auto-recall': 'active' },
      unchanged: [],
    });
    // The install carries the installed package's own bundles.
    for (const file of requiredRuntimeFiles()) {
      expect(await fs.readFile(path.join(site, 'stage', 'runtime', file))).toEqual(
        await fs.readFile(path.join(installed, 'dist', 'runtime', file)),
      );
    }

    const verify = cli('verify', '--dir', 'stage', '--deployment', 'deployment.json', '--json');
    const report = JSON.parse(verify.stdout) as {
      ok: boolean;
      checks: Array<{ id: string; file: string; ok: boolean; severity: string }>;
    };
    expect(report.checks.filter((c) => !c.ok && c.severity === 'error')).toEqual([]);
    expect({ code: verify.code, ok: report.ok }).toEqual({ code: 0, ok: true });
    expect(report.checks.filter((c) => c.id === 'smoke').map((c) => [c.file, c.ok])).toEqual([
      ['runtime/approval-guard.js', true],
      ['runtime/auto-recall.js', true],
      ['runtime/launch-qwen-start.js', true],
      ['runtime/mcp-server.js', true],
      ['runtime/rollback.js', true],
      ['runtime/write-confirmation.js', true],
    ]);

    // The rollback script ships in the package and finds the install's own self-contained bundle.
    const rollback = run(
      path.join(installed, 'scripts', 'rollback'),
      ['--dir', 'stage', '--profile', 'auto-recall', '--dry-run'],
      site,
      env,
    );
    expect(rollback.code).toBe(0);
    expect(rollback.stdout).toContain('rollback: dry run, nothing written');
    expect(existsSync(path.join(installed, 'schema', 'deployment.schema.json'))).toBe(true);
  });
});
