// The path rule: every repository-controlled path judged as Qwen will open it — links followed from
// the repository's real root, never through the judge's own working directory or into /proc.
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  judgePath,
  type LinkFs,
  type PathVerdict,
  pathProblem,
  rootOf,
} from '../../../src/policy/repository-path.js';

const REPO = '/srv/repos/app';

type Node = { file: string } | { dir: true } | { link: string } | { error: string };

/**
 * How the file system answers for a missing entry: node:fs, asked with `throwIfNoEntry: false` as
 * judgePath asks, returns undefined; a file system that throws ENOENT anyway is judged the same.
 */
type Missing = 'undefined' | 'throw';

/** An in-memory tree: absolute path → node; parents of every entry are directories. */
function memoryFs(tree: Record<string, Node>, missing: Missing = 'undefined'): LinkFs & { looked: string[] } {
  const nodes = new Map<string, Node>(Object.entries(tree));
  for (const p of Object.keys(tree)) {
    for (let d = path.posix.dirname(p); d !== '/'; d = path.posix.dirname(d)) {
      if (!nodes.has(d)) nodes.set(d, { dir: true });
    }
  }
  const looked: string[] = [];
  const fail = (code: string) => Object.assign(new Error(code), { code });
  return {
    looked,
    lstatSync(p, options) {
      looked.push(p);
      const node = nodes.get(p);
      if (node === undefined) {
        if (missing === 'undefined' && options.throwIfNoEntry === false) return undefined;
        throw fail('ENOENT');
      }
      if ('error' in node) throw fail(node.error);
      return {
        isSymbolicLink: () => 'link' in node,
        isDirectory: () => 'dir' in node,
        isFile: () => 'file' in node,
        size: 'file' in node ? node.file.length : 0,
      };
    },
    readlinkSync(p) {
      const node = nodes.get(p);
      if (node === undefined || !('link' in node)) throw fail('EINVAL');
      return node.link;
    },
  };
}

function judge(target: string, tree: Record<string, Node>, root = REPO, missing: Missing = 'undefined') {
  const fs = memoryFs(tree, missing);
  const verdict = judgePath(target, { root, fs, path: path.posix });
  return { verdict, looked: fs.looked };
}

/** The verdict as one comparable line: kind, where it leads, how many links were followed. */
function summary(v: PathVerdict): string {
  switch (v.kind) {
    case 'inside':
      return `inside ${v.real} (${v.type}, ${v.via.length} link(s))`;
    case 'absent':
      return `absent (${v.via.length} link(s))`;
    case 'outside':
      return `outside ${v.real}${v.dangling ? ' dangling' : ''} (${v.via.length} link(s))`;
    case 'special':
      return `special ${v.real} (${v.via.length} link(s))`;
    case 'loop':
      return `loop (${v.via.length} link(s))`;
    case 'unreadable':
      return `unreadable ${v.at} ${v.code}`;
  }
}

const r = (rel: string) => `${REPO}/${rel}`;

describe('judgePath: a repository path as Qwen will open it', () => {
  // [title, path, tree, verdict]
  const CASES: Array<[string, string, Record<string, Node>, string]> = [
    [
      'a plain file',
      r('QWEN.md'),
      { [r('QWEN.md')]: { file: 'hi' } },
      `inside ${r('QWEN.md')} (file, 0 link(s))`,
    ],
    ['a missing file', r('QWEN.md'), {}, 'absent (0 link(s))'],
    [
      'a directory',
      r('.qwen'),
      { [r('.qwen/x')]: { file: '' } },
      `inside ${r('.qwen')} (directory, 0 link(s))`,
    ],
    // Links into the repository.
    [
      'a relative link to a file beside it',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: 'docs/ai.md' }, [r('docs/ai.md')]: { file: '' } },
      `inside ${r('docs/ai.md')} (file, 1 link(s))`,
    ],
    [
      'an absolute link back into the repository',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: r('docs/ai.md') }, [r('docs/ai.md')]: { file: '' } },
      `inside ${r('docs/ai.md')} (file, 1 link(s))`,
    ],
    [
      'a relative link that climbs and comes back in',
      r('docs/QWEN.md'),
      { [r('docs/QWEN.md')]: { link: '../../app/README.md' }, [r('README.md')]: { file: '' } },
      `inside ${r('README.md')} (file, 1 link(s))`,
    ],
    [
      'a link through a directory link inside the repository',
      r('.qwen/settings.json'),
      { [r('.qwen')]: { link: 'config/qwen' }, [r('config/qwen/settings.json')]: { file: '{}' } },
      `inside ${r('config/qwen/settings.json')} (file, 1 link(s))`,
    ],
    // Links out of the repository.
    [
      'an absolute link to a file outside',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '/home/dev/.netrc' }, '/home/dev/.netrc': { file: 'secret' } },
      'outside /home/dev/.netrc (1 link(s))',
    ],
    [
      'a relative link with .. segments out of the repository',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '../../../home/dev/.netrc' }, '/home/dev/.netrc': { file: '' } },
      'outside /home/dev/.netrc (1 link(s))',
    ],
    [
      'a link to the repository’s parent directory',
      r('.qwen'),
      { [r('.qwen')]: { link: '..' } },
      'outside /srv/repos (1 link(s))',
    ],
    [
      '.qwen as a link to a directory outside: every file below it is outside',
      r('.qwen/settings.json'),
      { [r('.qwen')]: { link: '/tmp/evil' }, '/tmp/evil/settings.json': { file: '{}' } },
      'outside /tmp/evil/settings.json (1 link(s))',
    ],
    // /proc/self/* and the other special roots: never looked into.
    [
      'a link to /proc/self/environ',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '/proc/self/environ' } },
      'special /proc/self/environ (1 link(s))',
    ],
    [
      'a link to /proc/self/cwd/… (its target depends on who resolves it)',
      r('.qwen/.env'),
      { [r('.qwen/.env')]: { link: '/proc/self/cwd/evil.env' }, [r('evil.env')]: { file: '' } },
      'special /proc/self/cwd/evil.env (1 link(s))',
    ],
    [
      'a link to /proc/self/root/… (the reader’s root)',
      r('.qwen/settings.json'),
      { [r('.qwen/settings.json')]: { link: '/proc/self/root/srv/repos/app/x.json' } },
      'special /proc/self/root/srv/repos/app/x.json (1 link(s))',
    ],
    [
      'a link to /dev/stdin',
      r('.env'),
      { [r('.env')]: { link: '/dev/stdin' } },
      'special /dev/stdin (1 link(s))',
    ],
    [
      'a link to /sys/…',
      r('AGENTS.md'),
      { [r('AGENTS.md')]: { link: '/sys/kernel/notes' } },
      'special /sys/kernel/notes (1 link(s))',
    ],
    [
      'a relative link that climbs into /proc',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '../../../proc/self/environ' } },
      'special /proc/self/environ (1 link(s))',
    ],
    [
      'a chain whose last hop goes to /proc',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: 'a' }, [r('a')]: { link: 'b' }, [r('b')]: { link: '/proc/1/environ' } },
      'special /proc/1/environ (3 link(s))',
    ],
    // Dangling links.
    [
      'a dangling link inside the repository',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: 'missing.md' } },
      'absent (1 link(s))',
    ],
    [
      'a dangling link aimed outside (someone else may create the target later)',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '/tmp/later.md' } },
      'outside /tmp/later.md dangling (1 link(s))',
    ],
    [
      'a dangling link aimed into /proc',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: '/proc/self/cwd/missing' } },
      'special /proc/self/cwd/missing (1 link(s))',
    ],
    // `..` segments.
    [
      '.. segments that stay inside',
      r('sub/../QWEN.md'),
      { [r('QWEN.md')]: { file: '' } },
      `inside ${r('QWEN.md')} (file, 0 link(s))`,
    ],
    [
      '.. segments out of the repository (Qwen joins paths lexically)',
      r('../secret.md'),
      { '/srv/repos/secret.md': { file: '' } },
      'outside /srv/repos/secret.md (0 link(s))',
    ],
    [
      'written .. segments are joined away first, as Qwen’s path.join does before it opens the file',
      r('linked/../QWEN.md'),
      { [r('linked')]: { link: '/opt/vendor/pkg' }, [r('QWEN.md')]: { file: '' } },
      `inside ${r('QWEN.md')} (file, 0 link(s))`,
    ],
    [
      '.. inside a link target goes up from where the previous link led, as the kernel does',
      r('QWEN.md'),
      {
        [r('QWEN.md')]: { link: 'linked/../AGENTS.md' },
        [r('linked')]: { link: '/opt/vendor/pkg' },
        '/opt/vendor/pkg/index.js': { file: '' },
        '/opt/vendor/AGENTS.md': { file: '' },
        [r('AGENTS.md')]: { file: '' },
      },
      'outside /opt/vendor/AGENTS.md (2 link(s))',
    ],
    // Chains and loops.
    [
      'a chain that stays inside',
      r('QWEN.md'),
      {
        [r('QWEN.md')]: { link: 'a.md' },
        [r('a.md')]: { link: 'docs/b.md' },
        [r('docs/b.md')]: { file: '' },
      },
      `inside ${r('docs/b.md')} (file, 2 link(s))`,
    ],
    [
      'a chain that leaves on its second hop',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: 'a.md' }, [r('a.md')]: { link: '/etc/passwd' }, '/etc/passwd': { file: '' } },
      'outside /etc/passwd (2 link(s))',
    ],
    [
      'a chain that leaves and comes back ends inside (the file read is the repository’s)',
      r('QWEN.md'),
      {
        [r('QWEN.md')]: { link: '/tmp/hop' },
        '/tmp/hop': { link: r('docs/b.md') },
        [r('docs/b.md')]: { file: '' },
      },
      `inside ${r('docs/b.md')} (file, 2 link(s))`,
    ],
    ['a link to itself', r('QWEN.md'), { [r('QWEN.md')]: { link: 'QWEN.md' } }, 'loop (40 link(s))'],
    [
      'two links to each other',
      r('QWEN.md'),
      { [r('QWEN.md')]: { link: 'b' }, [r('b')]: { link: 'QWEN.md' } },
      'loop (40 link(s))',
    ],
    // Other outcomes.
    [
      'a file used as a directory (ENOTDIR)',
      r('QWEN.md/x'),
      { [r('QWEN.md')]: { file: '' } },
      'absent (0 link(s))',
    ],
    [
      'a step that cannot be looked at',
      r('private/QWEN.md'),
      { [r('private')]: { error: 'EACCES' } },
      `unreadable ${r('private')} EACCES`,
    ],
  ];
  it.each(CASES)('%s', (_title, target, tree, expected) => {
    expect(summary(judge(target, tree).verdict)).toBe(expected);
  });
  it.each(CASES)('%s (a missing entry thrown as ENOENT)', (_title, target, tree, expected) => {
    expect(summary(judge(target, tree, REPO, 'throw').verdict)).toBe(expected);
  });

  it('never looks under a special root, and never at a relative path', () => {
    const { looked } = judge(r('.qwen/.env'), {
      [r('.qwen/.env')]: { link: 'x' },
      [r('.qwen/x')]: { link: '/proc/self/cwd/.qwen/real.env' },
    });
    expect(looked).toEqual([r('.qwen'), r('.qwen/.env'), r('.qwen/x')]);
  });

  it('starts at the real root: an ordinary path costs one lstat per component inside the repository', () => {
    expect(judge(r('.qwen/settings.json'), { [r('.qwen/settings.json')]: { file: '{}' } }).looked).toEqual([
      r('.qwen'),
      r('.qwen/settings.json'),
    ]);
  });

  it('the same tree judged from anywhere gives the same verdict (nothing depends on a working directory)', () => {
    const tree: Record<string, Node> = {
      [r('.qwen/.env')]: { link: '/proc/self/cwd/evil.env' },
      [r('evil.env')]: { file: '' },
    };
    const first = judge(r('.qwen/.env'), tree).verdict;
    const cwd = process.cwd();
    try {
      process.chdir('/');
      expect(judge(r('.qwen/.env'), tree).verdict).toEqual(first);
    } finally {
      process.chdir(cwd);
    }
  });

  it('with the file-system root as the anchor only the special roots and loops remain refusals', () => {
    const tree: Record<string, Node> = {
      '/home/dev/.env': { link: '/etc/app.env' },
      '/etc/app.env': { file: '' },
      '/home/dev/.qwen/.env': { link: '/proc/self/cwd/.env' },
    };
    expect(summary(judge('/home/dev/.env', tree, '/').verdict)).toBe('inside /etc/app.env (file, 1 link(s))');
    expect(summary(judge('/home/dev/.qwen/.env', tree, '/').verdict)).toBe(
      'special /proc/self/cwd/.env (1 link(s))',
    );
  });
});

describe('pathProblem: the refusal text', () => {
  it.each<[string, PathVerdict, string | undefined]>([
    ['inside: none', { kind: 'inside', real: r('a'), type: 'file', size: 0, via: [] }, undefined],
    ['absent: none', { kind: 'absent', via: [] }, undefined],
    [
      'special, through a link',
      { kind: 'special', real: '/proc/self/environ', via: [`${r('QWEN.md')} -> /proc/self/environ`] },
      `it leads to /proc/self/environ (${r('QWEN.md')} -> /proc/self/environ), whose content belongs to the process that reads it (the launcher sees its own, Qwen would read Qwen's); fix: replace the link with a regular file inside the repository, or remove it`,
    ],
    [
      'outside, lexically',
      { kind: 'outside', real: '/srv/repos/secret.md', dangling: false, via: [] },
      `it leads to /srv/repos/secret.md, outside the repository ${REPO}; fix: keep the path inside the repository, or remove it`,
    ],
    [
      'outside, dangling',
      { kind: 'outside', real: '/tmp/later', dangling: true, via: [`${r('a')} -> /tmp/later`] },
      `it leads to /tmp/later (${r('a')} -> /tmp/later), outside the repository ${REPO} (nothing is there yet); fix: replace the link with a regular file inside the repository, or remove it`,
    ],
  ])('%s', (_title, verdict, expected) => {
    const problem = pathProblem(verdict, REPO);
    expect(problem === undefined ? undefined : `${problem.why}; fix: ${problem.fix}`).toBe(expected);
  });
});

describe('rootOf: the file-system root a normalized path starts from', () => {
  /** What it answered before reading the root off the front: `dirname` up to the top. */
  const byDirname = (file: string, syntax: typeof path.posix) => {
    let dir = file;
    for (let up = syntax.dirname(dir); up !== dir; up = syntax.dirname(dir)) dir = up;
    return dir;
  };
  it.each([
    ['posix', '/srv/repos/app/.env', '/'],
    ['posix', '/', '/'],
    ['posix', 'relative/.env', '.'],
    ['win32', 'C:\\Users\\dev\\repo\\.env', 'C:\\'],
    ['win32', '\\\\server\\share\\repo\\.env', '\\\\server\\share\\'],
    ['win32', 'C:repo\\.env', 'C:'],
    ['win32', 'relative\\.env', '.'],
  ] as const)('%s %s → %s, as dirname up to the top', (flavour, file, root) => {
    const syntax = flavour === 'win32' ? path.win32 : path.posix;
    expect(rootOf(syntax.normalize(file), syntax)).toBe(root);
    expect(byDirname(syntax.normalize(file), syntax)).toBe(root);
  });
});
