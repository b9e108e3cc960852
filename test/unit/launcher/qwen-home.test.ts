import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dataDir,
  ensureQwenHome,
  type HomePlatform,
  homePlatform,
  qwenHomePath,
} from '../../../launcher/qwen-home.js';
import { DEFAULT_QWEN_VERSION, pinnedQwenFacts } from '../../../src/qwen/versions.js';

const SETTINGS_VERSION = pinnedQwenFacts(DEFAULT_QWEN_VERSION).settingsVersion;

import { problems } from './problems.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

/** env-paths itself, in a child with a controlled environment and `process.platform` overridden. */
function envPathsData(platform: HomePlatform, env: Record<string, string>): string {
  const script = `
    import path from 'node:path';
    const platform = ${JSON.stringify(platform)};
    Object.defineProperty(process, 'platform', { value: platform });
    // env-paths joins with node:path; give it the separators of the platform it believes it is on.
    if (platform === 'win32') path.join = path.win32.join;
    const { default: envPaths } = await import('env-paths');
    process.stdout.write(JSON.stringify(envPaths('qwen-managed', { suffix: '' }).data));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as string;
}

describe('QWEN_HOME layout', () => {
  it.each([
    ['linux', '/home/dev', '/home/dev/.local/share/qwen-managed'],
    ['darwin', '/Users/dev', '/Users/dev/Library/Application Support/qwen-managed'],
    ['win32', 'C:\\Users\\dev', 'C:\\Users\\dev\\AppData\\Local\\qwen-managed\\Data'],
    ['linux', '/', '/.local/share/qwen-managed'],
    ['linux', '/home/dev/', '/home/dev/.local/share/qwen-managed'],
  ] as const)('dataDir(%s, %s) = %s', (platform, home, expected) => {
    expect(dataDir(platform, home)).toBe(expected);
  });

  it.each([
    ['linux', '/home/dev', '/home/dev/.local/share/qwen-managed/0123456789abcdef/auto-recall/home'],
    [
      'darwin',
      '/Users/dev',
      '/Users/dev/Library/Application Support/qwen-managed/0123456789abcdef/auto-recall/home',
    ],
    [
      'win32',
      'C:\\Users\\dev',
      'C:\\Users\\dev\\AppData\\Local\\qwen-managed\\Data\\0123456789abcdef\\auto-recall\\home',
    ],
  ] as const)('qwenHomePath(%s, %s)', (platform, home, expected) => {
    expect(qwenHomePath(platform, home, '0123456789abcdef', 'auto-recall')).toBe(expected);
  });

  it.each([
    ['linux', '/home/dev', { HOME: '/home/dev' }],
    ['darwin', '/Users/dev', { HOME: '/Users/dev' }],
    ['win32', 'C:\\Users\\dev', { HOME: 'C:\\Users\\dev' }],
  ] as const)('matches env-paths 4 on %s when no override variable is set', (platform, home, env) => {
    expect(dataDir(platform, home)).toBe(envPathsData(platform, env));
  });

  it.each([
    ['linux', { HOME: '/home/dev', XDG_DATA_HOME: '/tmp/elsewhere' }],
    ['win32', { HOME: 'C:\\Users\\dev', LOCALAPPDATA: 'D:\\elsewhere' }],
  ] as const)('ignores the variables env-paths would honour on %s', (platform, env) => {
    const home = env.HOME;
    expect(envPathsData(platform, env)).not.toBe(dataDir(platform, home));
    expect(dataDir(platform, home)).toBe(envPathsData(platform, { HOME: home }));
  });

  it.each([
    ['linux', 'linux'],
    ['freebsd', 'linux'],
    ['darwin', 'darwin'],
    ['win32', 'win32'],
  ] as const)('homePlatform(%s) = %s', (platform, expected) => {
    expect(homePlatform(platform)).toBe(expected);
  });
});

describe('ensureQwenHome', () => {
  let dir: string;
  let counter = 0;
  const uid = process.getuid!();
  const fresh = (): { home: string; qwenHome: string } => {
    const home = path.join(dir, `home-${counter++}`);
    fs.mkdirSync(home, { mode: 0o755 });
    return { home, qwenHome: qwenHomePath('linux', home, '0123456789abcdef', 'on-demand') };
  };
  const ensure = (
    home: string,
    qwenHome: string,
    overrides: { uid?: number; seed?: Readonly<Record<string, string>> } = {},
  ) =>
    ensureQwenHome(qwenHome, {
      home,
      uid: overrides.uid ?? uid,
      platform: 'linux',
      fs,
      uniqueSuffix: 'test',
      settingsVersion: SETTINGS_VERSION,
      ...(overrides.seed === undefined ? {} : { seed: overrides.seed }),
    });
  const mode = (p: string) => fs.statSync(p).mode & 0o7777;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-qwen-home-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates every missing level 0700 and writes {"$version":4} 0600', () => {
    const { home, qwenHome } = fresh();
    const previous = process.umask(0o000);
    try {
      ensure(home, qwenHome);
    } finally {
      process.umask(previous);
    }
    const levels = [
      '.local',
      '.local/share',
      '.local/share/qwen-managed',
      '.local/share/qwen-managed/0123456789abcdef',
    ];
    expect([
      ...levels.map((l) => mode(path.join(home, l))),
      mode(path.join(qwenHome, '..')),
      mode(qwenHome),
    ]).toEqual([0o700, 0o700, 0o700, 0o700, 0o700, 0o700]);
    // The pinned Qwen's own format: a file in any other would be migrated and rewritten on start.
    expect(fs.readFileSync(path.join(qwenHome, 'settings.json'), 'utf8')).toBe('{"$version":4}\n');
    expect(mode(path.join(qwenHome, 'settings.json'))).toBe(0o600);
    expect(fs.readdirSync(qwenHome)).toEqual(['settings.json']);
  });

  it("seeds a new home with the pinned Qwen's empty extension store (0600 files, 0700 directories)", () => {
    const { home, qwenHome } = fresh();
    const seed = pinnedQwenFacts(DEFAULT_QWEN_VERSION).qwenHomeSeed;
    ensure(home, qwenHome, { seed });
    expect(Object.keys(seed).sort()).toEqual([
      'extension-store/state.json',
      'extensions/extension-enablement.json',
    ]);
    for (const [rel, content] of Object.entries(seed)) {
      expect([fs.readFileSync(path.join(qwenHome, rel), 'utf8'), mode(path.join(qwenHome, rel))]).toEqual([
        content,
        0o600,
      ]);
      expect(mode(path.dirname(path.join(qwenHome, rel)))).toBe(0o700);
    }
    // The store is empty and its projection hash is the one Qwen computes for the empty enablement file.
    const state = JSON.parse(seed['extension-store/state.json']!);
    expect(state).toEqual({
      version: 2,
      generation: 0,
      legacyProjectionHash: createHash('sha256').update(JSON.stringify({})).digest('hex'),
      extensions: {},
    });
    expect(JSON.parse(seed['extensions/extension-enablement.json']!)).toEqual({});
  });

  it('never seeds into a directory Qwen already made: an existing store stays as it is', () => {
    const { home, qwenHome } = fresh();
    fs.mkdirSync(path.join(qwenHome, 'extension-store'), { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(qwenHome, 'extension-store', 'state.json'), '{"version":2,"generation":7}');
    const seed = pinnedQwenFacts(DEFAULT_QWEN_VERSION).qwenHomeSeed;
    ensure(home, qwenHome, { seed });
    expect(fs.readFileSync(path.join(qwenHome, 'extension-store', 'state.json'), 'utf8')).toBe(
      '{"version":2,"generation":7}',
    );
    // The other top-level directory was new: it is seeded.
    expect(fs.existsSync(path.join(qwenHome, 'extensions', 'extension-enablement.json'))).toBe(true);
  });

  it('leaves existing levels and an existing settings.json alone', () => {
    const { home, qwenHome } = fresh();
    fs.mkdirSync(path.join(home, '.local', 'share'), { recursive: true, mode: 0o755 });
    fs.chmodSync(path.join(home, '.local'), 0o755);
    fs.mkdirSync(qwenHome, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(qwenHome, 'settings.json'), '{"$version":4,"ui":{"theme":"dark"}}');
    ensure(home, qwenHome);
    expect(mode(path.join(home, '.local'))).toBe(0o755);
    expect(fs.readFileSync(path.join(qwenHome, 'settings.json'), 'utf8')).toBe(
      '{"$version":4,"ui":{"theme":"dark"}}',
    );
  });

  it('refuses a symlinked QWEN_HOME', () => {
    const { home, qwenHome } = fresh();
    const elsewhere = path.join(home, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.mkdirSync(path.dirname(qwenHome), { recursive: true, mode: 0o700 });
    fs.symlinkSync(elsewhere, qwenHome);
    expect(problems(() => ensure(home, qwenHome))).toEqual([
      `the Qwen home ${JSON.stringify(qwenHome)} must be a real directory, not a symlink or a file; remove it and retry`,
    ]);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('refuses a QWEN_HOME that is a file', () => {
    const { home, qwenHome } = fresh();
    fs.mkdirSync(path.dirname(qwenHome), { recursive: true, mode: 0o700 });
    fs.writeFileSync(qwenHome, '');
    expect(problems(() => ensure(home, qwenHome))).toEqual([
      `the Qwen home ${JSON.stringify(qwenHome)} must be a real directory, not a symlink or a file; remove it and retry`,
    ]);
  });

  it.each([0o750, 0o705, 0o770, 0o701])('refuses a QWEN_HOME with mode %o', (bad) => {
    const { home, qwenHome } = fresh();
    fs.mkdirSync(qwenHome, { recursive: true, mode: 0o700 });
    fs.chmodSync(qwenHome, bad);
    expect(problems(() => ensure(home, qwenHome))).toEqual([
      `the Qwen home ${JSON.stringify(qwenHome)} is accessible by group or others (mode 0${bad.toString(8)}); fix: chmod 700 '${qwenHome}'`,
    ]);
  });

  it('refuses a QWEN_HOME owned by someone else', () => {
    const { home, qwenHome } = fresh();
    fs.mkdirSync(qwenHome, { recursive: true, mode: 0o700 });
    expect(problems(() => ensure(home, qwenHome, { uid: uid + 4242 }))).toEqual([
      `the Qwen home ${JSON.stringify(qwenHome)} is owned by uid ${uid}, not you (uid ${uid + 4242}); remove it and retry`,
    ]);
  });

  it('refuses a QWEN_HOME outside the home directory', () => {
    const { home } = fresh();
    expect(problems(() => ensure(home, '/elsewhere/home'))).toEqual([
      `the Qwen home "/elsewhere/home" is not under your home directory ${JSON.stringify(home)}`,
    ]);
  });
});
