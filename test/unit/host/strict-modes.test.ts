import { describe, expect, it } from 'vitest';
import { StrictModes } from '../../../src/host/strict-modes.js';
import { dir, fakeFs, file, link, type Node } from '../../fixtures/fake-strict-fs.js';

const BASE: Record<string, Node> = {
  '/': dir(),
  '/usr': dir(),
  '/usr/bin': dir(),
  '/usr/bin/node': file(0o755),
  '/tmp': dir(0o1777),
  '/opt': dir(),
  '/opt/qm': dir(),
  '/opt/qm/launch.json': file(),
};

function check(extra: Record<string, Node>, target: string, adminUid = 0) {
  const strict = new StrictModes(adminUid, fakeFs({ ...BASE, ...extra }));
  const result = strict.checkChain(target);
  return { result, problems: strict.problems() };
}

describe('StrictModes', () => {
  it('accepts a root-owned chain and returns the real path', () => {
    expect(check({}, '/usr/bin/node')).toEqual({
      result: { kind: 'ok', realPath: '/usr/bin/node' },
      problems: [],
    });
  });

  it.each([
    [
      'a group-writable file',
      { '/opt/qm/launch.json': file(0o664) },
      '"/opt/qm/launch.json" is a file writable by group or others (mode 0664); fix: chmod go-w \'/opt/qm/launch.json\'',
    ],
    [
      'a world-writable file',
      { '/opt/qm/launch.json': file(0o646) },
      '"/opt/qm/launch.json" is a file writable by group or others (mode 0646); fix: chmod go-w \'/opt/qm/launch.json\'',
    ],
    [
      'a world-writable parent directory',
      { '/opt/qm': dir(0o757) },
      '"/opt/qm" is a directory writable by group or others (mode 0757); fix: chmod go-w \'/opt/qm\'',
    ],
    [
      'a group-writable grandparent directory',
      { '/opt': dir(0o775) },
      '"/opt" is a directory writable by group or others (mode 0775); fix: chmod go-w \'/opt\'',
    ],
    [
      'a file owned by another user',
      { '/opt/qm/launch.json': file(0o644, 1234) },
      '"/opt/qm/launch.json" is owned by uid 1234, not root; fix: chown root \'/opt/qm/launch.json\'',
    ],
    [
      'a directory owned by another user',
      { '/opt/qm': dir(0o755, 1234) },
      '"/opt/qm" is owned by uid 1234, not root; fix: chown root \'/opt/qm\'',
    ],
    [
      'a world-writable root directory',
      { '/': dir(0o777) },
      '"/" is a directory writable by group or others (mode 0777); fix: chmod go-w \'/\'',
    ],
  ])('refuses %s', (_title, extra, problem) => {
    expect(check(extra, '/opt/qm/launch.json').problems).toEqual([problem]);
  });

  it('accepts a sticky world-writable directory such as /tmp', () => {
    expect(check({ '/tmp/qm': dir(), '/tmp/qm/f': file() }, '/tmp/qm/f').problems).toEqual([]);
  });

  it('still refuses a sticky directory owned by someone else', () => {
    expect(check({ '/tmp': dir(0o1777, 1234), '/tmp/f': file() }, '/tmp/f').problems).toEqual([
      '"/tmp" is owned by uid 1234, not root; fix: chown root \'/tmp\'',
    ]);
  });

  it('refuses an entry another user placed in a sticky directory', () => {
    expect(check({ '/tmp/qm': dir(0o755, 1234), '/tmp/qm/f': file() }, '/tmp/qm/f').problems).toEqual([
      '"/tmp/qm" is owned by uid 1234, not root; fix: chown root \'/tmp/qm\'',
    ]);
  });

  it("accepts the manifest's administrator as owner, and names them when refusing", () => {
    expect(check({ '/opt/qm/launch.json': file(0o644, 1000) }, '/opt/qm/launch.json', 1000).problems).toEqual(
      [],
    );
    expect(check({ '/opt/qm/launch.json': file(0o644, 1001) }, '/opt/qm/launch.json', 1000).problems).toEqual(
      [
        '"/opt/qm/launch.json" is owned by uid 1001, not root or the administrator (uid 1000); fix: chown root \'/opt/qm/launch.json\'',
      ],
    );
  });

  it('follows a relative symlink and checks the directories of its target', () => {
    const extra = {
      '/usr/local': dir(),
      '/usr/local/bin': dir(),
      '/usr/local/bin/node': link('../lib/node/bin/node'),
      '/usr/local/lib': dir(),
      '/usr/local/lib/node': dir(0o775),
      '/usr/local/lib/node/bin': dir(),
      '/usr/local/lib/node/bin/node': file(0o755),
    };
    expect(check(extra, '/usr/local/bin/node')).toEqual({
      result: { kind: 'ok', realPath: '/usr/local/lib/node/bin/node' },
      problems: [
        '"/usr/local/lib/node" is a directory writable by group or others (mode 0775); fix: chmod go-w \'/usr/local/lib/node\'',
      ],
    });
  });

  it('follows an absolute symlink in the middle of the path, checking every hop', () => {
    const extra = {
      '/opt/current': link('/srv/releases/7'),
      '/srv': dir(),
      '/srv/releases': dir(0o777),
      '/srv/releases/7': link('/opt/qm'),
    };
    expect(check(extra, '/opt/current/launch.json')).toEqual({
      result: { kind: 'ok', realPath: '/opt/qm/launch.json' },
      problems: [
        '"/srv/releases" is a directory writable by group or others (mode 0777); fix: chmod go-w \'/srv/releases\'',
      ],
    });
  });

  it('checks the owner of a symlink itself (its mode is meaningless)', () => {
    expect(check({ '/opt/link': link('/opt/qm', 1234) }, '/opt/link/launch.json').problems).toEqual([
      '"/opt/link" is owned by uid 1234, not root; fix: chown root \'/opt/link\'',
    ]);
  });

  it.each([
    ['/opt/qm/missing.json', '/opt/qm/missing.json'],
    ['/nope/a/b', '/nope'],
  ])('reports %s as missing at %s', (target, at) => {
    expect(check({}, target)).toEqual({ result: { kind: 'missing', path: at }, problems: [] });
  });

  it('stops at a symlink loop', () => {
    expect(check({ '/opt/a': link('/opt/b'), '/opt/b': link('/opt/a') }, '/opt/a/x')).toEqual({
      result: { kind: 'unreadable' },
      problems: ['"/opt/a/x" cannot be resolved: too many symbolic links'],
    });
  });

  it('reports each problem once across many paths', () => {
    const strict = new StrictModes(0, fakeFs({ ...BASE, '/opt': dir(0o777), '/opt/qm/other.json': file() }));
    strict.checkChain('/opt/qm/launch.json');
    strict.checkChain('/opt/qm/other.json');
    expect(strict.problems()).toEqual([
      '"/opt" is a directory writable by group or others (mode 0777); fix: chmod go-w \'/opt\'',
    ]);
  });
});
