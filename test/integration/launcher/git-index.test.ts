// The gitlinks and symbolic links of a git index, read from indexes the real git wrote (every
// version and hash the launcher reads; docs/repository.md#git): git status enters each populated
// gitlink, and Qwen's read-only tools follow each link the checkout made.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexLinks } from '../../../src/policy/git-index.js';
import { gitScratch } from '../../fixtures/git-scratch.js';

const { base, env: ENV } = gitScratch('qm-git-index-');
let counter = 0;

/** A repository with files, two gitlinks (one deep, one with a long name) and `extra` git commands. */
function repository(init: string[], extra: string[][]): string {
  const dir = path.join(base, `r${counter++}`);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { env: ENV })
      .toString()
      .trim();
  execFileSync('git', ['init', '-q', ...init, dir], { env: ENV });
  for (const name of ['a.txt', 'src/deep/b.txt', 'src/deep/c.txt', `${'z'.repeat(40)}.txt`]) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), `${name}\n`);
  }
  git('add', '.');
  git('commit', '-q', '-m', 'files');
  const head = git('rev-parse', 'HEAD');
  for (const link of ['vendor/lib', `src/deep/${'m'.repeat(30)}`])
    git('update-index', '--add', '--cacheinfo', `160000,${head},${link}`);
  for (const [link, target] of LINKS) {
    fs.symlinkSync(target, path.join(dir, link));
    git('add', link);
  }
  fs.writeFileSync(path.join(dir, 'new.txt'), 'new\n');
  for (const args of extra) git(...args);
  return path.join(dir, '.git', 'index');
}

const GITLINKS = [`src/deep/${'m'.repeat(30)}`, 'vendor/lib'];
/** Symbolic links of the checkout (one with a long name, one beside the deep files), added to the index. */
const LINKS: Array<[string, string]> = [
  [`src/deep/${'l'.repeat(30)}`, '/proc/self/environ'],
  ['src/deep/c-link.txt', 'c.txt'],
];
const SYMLINKS = ['src/deep/c-link.txt', `src/deep/${'l'.repeat(30)}`];

describe('indexLinks', () => {
  // [title, git init options, git commands after the gitlinks, hash bytes]
  it.each<[string, string[], string[][], number]>([
    ['version 2 (SHA-1)', [], [], 20],
    ['version 3: an intent-to-add entry has extended flags', [], [['add', '-N', 'new.txt']], 20],
    ['version 4: prefix-compressed paths', [], [['update-index', '--index-version', '4']], 20],
    ['SHA-256', ['--object-format=sha256'], [], 32],
    ['SHA-256, version 4', ['--object-format=sha256'], [['update-index', '--index-version', '4']], 32],
  ])('%s', (_title, init, extra, hashBytes) => {
    const index = repository(init, extra);
    expect(indexLinks(fs.readFileSync(index), hashBytes)).toEqual({ gitlinks: GITLINKS, symlinks: SYMLINKS });
  });

  it('a split index is reported (its entries are in another file)', () => {
    const index = repository([], [['update-index', '--split-index']]);
    expect(indexLinks(fs.readFileSync(index), 20)).toEqual({
      error: 'a split index (core.splitIndex): its entries are in another file',
    });
  });

  it.each<[string, Uint8Array]>([
    ['not an index', new TextEncoder().encode('hello world!')],
    ['a truncated index', new Uint8Array([0x44, 0x49, 0x52, 0x43, 0, 0, 0, 2, 0, 0, 0, 1])],
  ])('%s is an error', (_title, data) => {
    expect(indexLinks(data, 20)).toHaveProperty('error');
  });
});
