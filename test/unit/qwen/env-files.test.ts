// Which .env files Qwen 0.24 loads, replayed on an in-memory file system (the measured rules:
// docs/repository.md). The e2e suite checks the same rules against the real CLI.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envFilesQwenLoads, matchesNamePattern } from '../../../src/qwen/env-files.js';

const HOME = '/home/dev';
const QWEN_HOME = '/home/dev/.local/share/qwen-managed/id/on-demand/home';
const REPO = '/srv/repos/app';

function search(
  files: string[],
  options: { trusted?: boolean; startDir?: string; links?: Record<string, string> } = {},
) {
  const present = new Set(files);
  return envFilesQwenLoads({
    startDir: options.startDir ?? REPO,
    home: HOME,
    qwenHome: QWEN_HOME,
    trusted: options.trusted ?? true,
    fs: {
      existsSync: (p) => present.has(p),
      realpathSync: (p) => options.links?.[p] ?? p,
    },
    path: path.posix,
  }).map((f) => `${f.scope} ${f.path}`);
}

describe('envFilesQwenLoads', () => {
  it.each<
    [string, string[], { trusted?: boolean; startDir?: string; links?: Record<string, string> }, string[]]
  >([
    ['nothing anywhere', [], {}, []],
    ['the repository .env', [`${REPO}/.env`], {}, [`project ${REPO}/.env`]],
    [
      '.qwen/.env first, and then .env is not read at all',
      [`${REPO}/.qwen/.env`, `${REPO}/.env`],
      {},
      [`project-qwen ${REPO}/.qwen/.env`],
    ],
    [
      'home files after the project file, QWEN_HOME first (it is not ~/.qwen, so ~/.qwen/.env counts too)',
      [`${REPO}/.env`, `${HOME}/.env`, `${HOME}/.qwen/.env`, `${QWEN_HOME}/.env`],
      {},
      [`project ${REPO}/.env`, `home ${QWEN_HOME}/.env`, `home ${HOME}/.qwen/.env`, `home ${HOME}/.env`],
    ],
    [
      'a parent directory .env is never used: / is DO_NOT_TRUST in the pinned rules',
      ['/srv/repos/.env', '/srv/.qwen/.env', '/.env'],
      {},
      [],
    ],
    [
      'an untrusted repository: only the home files',
      [`${REPO}/.env`, `${REPO}/.qwen/.env`, `${HOME}/.env`],
      { trusted: false },
      [`home ${HOME}/.env`],
    ],
    [
      'the repository is reached through a symlink: its real path is the one compared',
      ['/data/app/.env'],
      { startDir: '/srv/link', links: { '/srv/link': '/data/app' } },
      ['project /data/app/.env'],
    ],
    [
      'started in HOME: only the home files (HOME is where the walk stops)',
      [`${HOME}/.env`, `${HOME}/.qwen/.env`],
      { startDir: HOME },
      [`home ${HOME}/.qwen/.env`, `home ${HOME}/.env`],
    ],
    [
      'a repository below HOME: the walk stops at HOME, whose files count once',
      [`${HOME}/.env`],
      { startDir: `${HOME}/work/app` },
      [`home ${HOME}/.env`],
    ],
  ])('%s', (_title, files, options, expected) => {
    expect(search(files, options)).toEqual(expected);
  });
});

describe('matchesNamePattern (environment.fromFiles)', () => {
  it.each<[string, string, 'posix' | 'windows', boolean]>([
    ['DATABASE_URL', 'DATABASE_URL', 'posix', true],
    ['DATABASE_URL', 'database_url', 'posix', false],
    ['DATABASE_URL', 'database_url', 'windows', true],
    ['APP_MODE', 'APP_*', 'posix', true],
    ['APP', 'APP_*', 'posix', false],
    ['APPLE', 'APP*', 'posix', true],
    ['XAPP_MODE', 'APP_*', 'posix', false],
  ])('%s against %s (%s) → %s', (name, pattern, platform, expected) => {
    expect(matchesNamePattern(name, pattern, platform)).toBe(expected);
  });
});
