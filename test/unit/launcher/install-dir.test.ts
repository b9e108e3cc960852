import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPlanInstallDir, installDirFromLauncher } from '../../../launcher/install-dir.js';
import { problems } from './problems.js';

let dir: string;
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-install-dir-')));
  fs.mkdirSync(path.join(dir, 'install', 'runtime'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'install', 'runtime', 'launch-qwen.js'), '');
  fs.writeFileSync(path.join(dir, 'install', 'runtime', 'other.js'), '');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.symlinkSync(
    path.join(dir, 'install', 'runtime', 'launch-qwen.js'),
    path.join(dir, 'bin', 'launch-qwen.js'),
  );
  fs.symlinkSync(path.join(dir, 'install'), path.join(dir, 'install-link'));
  fs.mkdirSync(path.join(dir, 'elsewhere'));
  fs.writeFileSync(path.join(dir, 'elsewhere', 'launch-qwen.js'), '');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('installDirFromLauncher', () => {
  it.each([
    ['the bundle itself', 'install/runtime/launch-qwen.js'],
    ['a symlink to the bundle', 'bin/launch-qwen.js'],
    ['a path through a symlinked install', 'install-link/runtime/launch-qwen.js'],
  ])('resolves %s to the real install directory', (_title, rel) => {
    expect(installDirFromLauncher(path.join(dir, rel), fs, path.posix)).toBe(path.join(dir, 'install'));
  });

  it.each([['elsewhere/launch-qwen.js'], ['install/runtime/other.js']])(
    'refuses a launcher outside <installDir>/runtime/launch-qwen.js: %s',
    (rel) => {
      expect(problems(() => installDirFromLauncher(path.join(dir, rel), fs, path.posix))).toEqual([
        `the launcher must run as <installDir>/runtime/launch-qwen.js, but it is ${JSON.stringify(path.join(dir, rel))}; install it with qwen-managed render`,
      ]);
    },
  );
});

describe('checkPlanInstallDir', () => {
  it('accepts the plan installDir and a symlink to it', () => {
    const real = path.join(dir, 'install');
    expect(problems(() => checkPlanInstallDir(real, real, fs))).toEqual([]);
    expect(problems(() => checkPlanInstallDir(path.join(dir, 'install-link'), real, fs))).toEqual([]);
  });

  it.each([['/opt/qwen-managed'], ['elsewhere']])('refuses a plan for %s', (planned) => {
    const real = path.join(dir, 'install');
    const plannedPath = planned.startsWith('/') ? planned : path.join(dir, planned);
    expect(problems(() => checkPlanInstallDir(plannedPath, real, fs))).toEqual([
      `the launch plan belongs to the install directory ${JSON.stringify(plannedPath)}, but this launcher runs from ${JSON.stringify(real)}; a moved or copied install is refused — render the deployment into ${JSON.stringify(real)} instead`,
    ]);
  });
});
