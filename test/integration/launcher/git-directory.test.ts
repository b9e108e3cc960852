// Which git directory git uses when Qwen runs `git` in the repository, against the launcher's
// reading of it (docs/repository.md#git): each row is built with the real git, which then runs the
// repository's program (the negative control: its marker file appears), and the launcher must refuse
// the file and key that named it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RepositoryPaths } from '../../../launcher/repository-files.js';
import { judgeGitDirectory } from '../../../launcher/repository-git.js';
import { gitScratch } from '../../fixtures/git-scratch.js';

const { base, env: ENV } = gitScratch('qm-git-dir-');
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** A repository whose clean filter (`filter.evil.clean`, every file) writes `marker`; a.txt modified. */
function filtered(dir: string, marker: string): string {
  execFileSync('git', ['init', '-q', dir], { env: ENV });
  write(path.join(dir, '.gitattributes'), '* filter=evil\n');
  write(path.join(dir, 'a.txt'), 'a\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'a');
  git(dir, 'config', 'filter.evil.clean', `touch ${marker}; cat`);
  write(path.join(dir, 'a.txt'), 'b\n');
  return git(dir, 'rev-parse', 'HEAD');
}

interface Row {
  /** Where Qwen (and so git) starts. */
  cwd: string;
  /** The read-only git command Qwen runs there. */
  run: string[];
}

let counter = 0;

describe('the launcher judges the git directory git uses', () => {
  // [title, build (repository directory, marker) → where Qwen starts, the refusals (file below the repository, key)]
  it.each<[string, (repo: string, marker: string) => Row, Array<[string, string]>]>([
    [
      'Qwen started in a subdirectory: git uses the .git above it',
      (repo, marker) => {
        filtered(repo, marker);
        fs.mkdirSync(path.join(repo, 'sub'));
        return { cwd: path.join(repo, 'sub'), run: ['status', '--short'] };
      },
      [['.git/config', 'filter.evil.clean']],
    ],
    [
      'a subdirectory holding a .git directory git does not take (no HEAD): git looks further up',
      (repo, marker) => {
        filtered(repo, marker);
        write(path.join(repo, 'sub', '.git', 'config'), '[core]\n\tbare = false\n');
        return { cwd: path.join(repo, 'sub'), run: ['status', '--short'] };
      },
      [['.git/config', 'filter.evil.clean']],
    ],
    [
      'a subdirectory whose .git is a FIFO: git passes over it',
      (repo, marker) => {
        filtered(repo, marker);
        fs.mkdirSync(path.join(repo, 'sub'));
        execFileSync('mkfifo', [path.join(repo, 'sub', '.git')]);
        return { cwd: path.join(repo, 'sub'), run: ['status', '--short'] };
      },
      [['.git/config', 'filter.evil.clean']],
    ],
    [
      'a bare repository at the root (HEAD, objects, refs, config): git show runs its textconv',
      (repo, marker) => {
        const work = `${repo}-work`;
        execFileSync('git', ['init', '-q', work], { env: ENV });
        write(path.join(work, 'a.txt'), 'a\n');
        git(work, 'add', '.');
        git(work, 'commit', '-q', '-m', 'a');
        write(path.join(work, 'a.txt'), 'b\n');
        git(work, 'commit', '-q', '-am', 'b');
        execFileSync('git', ['clone', '-q', '--bare', work, repo], { env: ENV });
        write(path.join(repo, 'info', 'attributes'), '* diff=evil\n');
        git(repo, 'config', 'diff.evil.textconv', `sh -c 'touch ${marker}; cat "$0"'`);
        return { cwd: repo, run: ['show'] };
      },
      [['config', 'diff.evil.textconv']],
    ],
    [
      'a .git file whose path ends in a space (git keeps it; it drops only CR and LF)',
      (repo, marker) => {
        filtered(repo, marker);
        fs.renameSync(path.join(repo, '.git'), path.join(repo, 'g '));
        write(path.join(repo, '.git'), 'gitdir: g \n');
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['g /config', 'filter.evil.clean']],
    ],
    [
      'a .git link to a gitdir file: its relative path is taken from the working tree, not the link target',
      (repo, marker) => {
        filtered(repo, marker);
        fs.renameSync(path.join(repo, '.git'), path.join(repo, 'g'));
        write(path.join(repo, 'd', 'gitfile'), 'gitdir: g\n');
        fs.symlinkSync('d/gitfile', path.join(repo, '.git'));
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['g/config', 'filter.evil.clean']],
    ],
    [
      'core.worktree moves the working tree: git status enters the submodules of the index there',
      (repo, marker) => {
        execFileSync('git', ['init', '-q', repo], { env: ENV });
        const head = filtered(path.join(repo, 'w', 'm'), marker);
        git(repo, 'config', 'core.worktree', '../w');
        git(repo, 'update-index', '--add', '--cacheinfo', `160000,${head},m`);
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['w/m/.git/config', 'filter.evil.clean']],
    ],
    [
      'core.hooksPath in a config.worktree git ignores (no extensions.worktreeConfig): git runs the hook of config',
      (repo, marker) => {
        filtered(repo, marker);
        git(repo, 'config', '--unset', 'filter.evil.clean');
        git(repo, 'config', 'core.hooksPath', 'good');
        write(path.join(repo, '.git', 'config.worktree'), '[core]\n\thooksPath = other\n');
        write(path.join(repo, 'good', 'post-index-change'), `#!/bin/sh\ntouch ${marker}\n`);
        fs.chmodSync(path.join(repo, 'good', 'post-index-change'), 0o755);
        fs.utimesSync(path.join(repo, 'a.txt'), 1e9, 1e9);
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['good/post-index-change', '(the hook)']],
    ],
    [
      'core.hooksPath starting with ~: git takes it from $HOME (here the test directory)',
      (repo, marker) => {
        filtered(repo, marker);
        git(repo, 'config', '--unset', 'filter.evil.clean');
        git(repo, 'config', 'core.hooksPath', `~/${path.relative(base, repo)}/tools`);
        write(path.join(repo, 'tools', 'post-index-change'), `#!/bin/sh\ntouch ${marker}\n`);
        fs.chmodSync(path.join(repo, 'tools', 'post-index-change'), 0o755);
        fs.utimesSync(path.join(repo, 'a.txt'), 1e9, 1e9);
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['.git/config', 'core.hookspath']],
    ],
    [
      'submodules nested ten deep: git status enters them all',
      (repo, marker) => {
        const dirs = Array.from({ length: 11 }, (_, i) => path.join(repo, ...Array<string>(i).fill('s')));
        for (const dir of dirs.slice(0, -1)) execFileSync('git', ['init', '-q', dir], { env: ENV });
        let head = filtered(dirs.at(-1)!, marker);
        for (const dir of dirs.slice(0, -1).reverse()) {
          git(dir, 'update-index', '--add', '--cacheinfo', `160000,${head},s`);
          git(dir, 'commit', '-q', '-m', 's');
          head = git(dir, 'rev-parse', 'HEAD');
        }
        return { cwd: repo, run: ['status', '--short'] };
      },
      [['s/s/s/s/s/s/s/s/s/.git', '(submodule nesting)']],
    ],
  ])('%s', (_title, build, refusals) => {
    const repo = path.join(base, `r${counter++}`);
    const marker = path.join(base, `marker${counter}`);
    const row = build(repo, marker);
    // The negative control: the real git runs the repository's program there.
    git(row.cwd, ...row.run);
    expect(fs.existsSync(marker)).toBe(true);
    const paths = new RepositoryPaths(fs.realpathSync(row.cwd), fs, path);
    judgeGitDirectory(paths);
    expect(paths.refused.map((r) => [path.relative(repo, r.file), r.key])).toEqual(refusals);
  });
});

describe('a .git directory git cannot search (as a non-root user)', () => {
  it('git looks further up past a .git whose objects the user cannot search; the launcher too', () => {
    if (process.getuid?.() !== 0) throw new Error('needs root: git runs as the user nobody here');
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'qm-git-perm-'));
    try {
      fs.chmodSync(top, 0o777);
      const marker = path.join(top, 'marker');
      const repo = path.join(top, 'h');
      const script = [
        `git init -q ${repo} && cd ${repo}`,
        `printf '* filter=evil\\n' > .gitattributes && echo a > a.txt && git add . && git commit -qm a`,
        `git config filter.evil.clean 'touch ${marker}; cat' && echo b > a.txt`,
        'mkdir -p sub/.git/objects sub/.git/refs && echo "ref: refs/heads/main" > sub/.git/HEAD',
        'chmod 600 sub/.git/objects && cd sub && git status --short',
      ].join('\n');
      const env = { ...ENV, HOME: top, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
      execFileSync('runuser', ['-u', 'nobody', '--', 'sh', '-ec', script], { env, stdio: 'ignore' });
      // The negative control: git took the repository above and ran its filter.
      expect(fs.existsSync(marker)).toBe(true);
      // The launcher runs as the developer: access() as root would pass, so nobody's answer is replayed.
      const objects = path.join(repo, 'sub', '.git', 'objects');
      const asNobody = {
        ...fs,
        accessSync: (file: fs.PathLike, mode?: number) => {
          if (file === objects) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
          fs.accessSync(file, mode);
        },
      };
      const paths = new RepositoryPaths(path.join(repo, 'sub'), asNobody, path);
      judgeGitDirectory(paths);
      expect(paths.refused.map((r) => [path.relative(repo, r.file), r.key])).toEqual([
        ['.git/config', 'filter.evil.clean'],
      ]);
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });
});
