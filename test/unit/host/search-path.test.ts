// The pinned PATH judged on the host: who may add a program to one of its directories (bash runs
// every hook), one line per problem.
import { describe, expect, it } from 'vitest';
import { searchPathProblems } from '../../../src/host/search-path.js';
import { dir, fakeFs, file, link, type Node } from '../../fixtures/fake-strict-fs.js';

const BASE: Record<string, Node> = {
  '/': dir(),
  '/usr': dir(),
  '/usr/bin': dir(),
  '/usr/bin/bash': file(0o755),
  '/bin': link('usr/bin'),
  '/tmp': dir(0o1777),
  '/opt': dir(),
  '/opt/tools': dir(),
};

const ADMIN = 1000;

function judge(searchPath: string, extra: Record<string, Node> = {}) {
  return searchPathProblems(searchPath, ADMIN, fakeFs({ ...BASE, ...extra }));
}

describe('searchPathProblems', () => {
  it.each<[string, string, Record<string, Node>, string[]]>([
    ['root-owned system directories', '/usr/bin:/bin', {}, []],
    [
      'a directory of the administrator',
      '/opt/tools/bin:/usr/bin',
      { '/opt/tools/bin': dir(0o755, ADMIN) },
      [],
    ],
    // Nobody but root may create a name under a root-owned 0755 directory.
    ['a missing entry under a closed directory', '/opt/tools/bin:/usr/bin', {}, []],
    // Relative and empty entries are the deployment's shape problem, refused where the PATH is pinned.
    ['relative and empty entries are judged elsewhere', 'bin::/usr/bin', {}, []],
    [
      'a sticky world-writable directory (/tmp): anyone may add a bash',
      '/tmp:/usr/bin',
      {},
      [
        `environment.PATH entry "/tmp" is a sticky directory writable by group or others (mode 1777): anyone may add a program to it, bash for the hooks among them; fix: take it out of environment.PATH in deployment.json`,
      ],
    ],
    [
      'a link to a sticky world-writable directory is judged by where it leads',
      '/opt/tools/bin:/usr/bin',
      { '/opt/tools/bin': link('/tmp') },
      [
        `environment.PATH entry "/opt/tools/bin" is a sticky directory writable by group or others (mode 1777): anyone may add a program to it, bash for the hooks among them; fix: take it out of environment.PATH in deployment.json`,
      ],
    ],
    [
      'a missing entry anyone may create in a sticky directory',
      '/tmp/tools/bin:/usr/bin',
      {},
      [
        `environment.PATH entry "/tmp/tools/bin" does not exist, and anyone may create it in "/tmp" (mode 1777); fix: take it out of environment.PATH in deployment.json, or create it as root (mkdir -p '/tmp/tools/bin')`,
      ],
    ],
    [
      'a group-writable directory',
      '/opt/tools:/usr/bin',
      { '/opt/tools': dir(0o775) },
      [
        `environment.PATH: "/opt/tools" is a directory writable by group or others (mode 0775); fix: chmod go-w '/opt/tools'`,
      ],
    ],
    [
      "a directory of another user (the developer's ~/bin)",
      '/home/dev/bin:/usr/bin',
      { '/home': dir(), '/home/dev': dir(0o755, 1001), '/home/dev/bin': dir(0o755, 1001) },
      [
        `environment.PATH: "/home/dev" is owned by uid 1001, not root or the administrator (uid 1000); fix: chown root '/home/dev'`,
        `environment.PATH: "/home/dev/bin" is owned by uid 1001, not root or the administrator (uid 1000); fix: chown root '/home/dev/bin'`,
      ],
    ],
    [
      'an entry named twice is reported once',
      '/tmp:/usr/bin:/tmp',
      {},
      [
        `environment.PATH entry "/tmp" is a sticky directory writable by group or others (mode 1777): anyone may add a program to it, bash for the hooks among them; fix: take it out of environment.PATH in deployment.json`,
      ],
    ],
  ])('%s', (_name, searchPath, extra, expected) => {
    expect(judge(searchPath, extra)).toEqual(expected);
  });
});
