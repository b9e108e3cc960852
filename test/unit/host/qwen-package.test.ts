// Where the launcher and verify look for the packages Qwen imports from outside its own directory:
// Node's own walk up the node_modules directories. Most candidates on the way do not exist, so the
// walk asks stat(2) without a thrown ENOENT for each (an error with its stack was built for every
// missing level, ~75 per launch; docs/performance.md, "The launcher").
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type QwenPackageFs, resolvePackageDir, walkQwenPackage } from '../../../src/host/qwen-package.js';

let base: string;
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-qwen-package-')));
  fs.mkdirSync(path.join(base, 'node_modules/@scope/dep'), { recursive: true });
  fs.mkdirSync(path.join(base, 'node_modules/plain'), { recursive: true });
  fs.mkdirSync(path.join(base, 'a/node_modules/plain'), { recursive: true });
  fs.mkdirSync(path.join(base, 'a/node_modules/node_modules/@scope/dep'), { recursive: true });
  fs.writeFileSync(path.join(base, 'a/node_modules/file-dep'), 'not a directory\n');
  fs.mkdirSync(path.join(base, 'a/b/c'), { recursive: true });
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

/** node:fs's statSync, counting the errors it throws. */
function countingStat() {
  const thrown: string[] = [];
  const statSync = ((file: string, options?: fs.StatSyncOptions) => {
    try {
      return fs.statSync(file, options);
    } catch (error) {
      thrown.push(file);
      throw error;
    }
  }) as typeof fs.statSync;
  return { fs: { statSync }, thrown };
}

describe('resolvePackageDir: Node’s walk up the node_modules directories', () => {
  it.each([
    ['the nearest ancestor that has it', 'a/b/c', 'plain', 'a/node_modules/plain'],
    ['a scoped package further up', 'a/b/c', '@scope/dep', 'node_modules/@scope/dep'],
    ['a file of that name is not a package: one level up', 'a/b', 'file-dep', undefined],
    [
      'an ancestor that is a node_modules directory is skipped',
      'a/node_modules',
      '@scope/dep',
      'node_modules/@scope/dep',
    ],
    ['nowhere up to `/`', 'a/b/c', 'absent-dep', undefined],
  ])('%s', (_what, from, name, expected) => {
    const { fs: counted, thrown } = countingStat();
    expect(resolvePackageDir(path.join(base, from), name, counted)).toEqual(
      expected === undefined ? undefined : path.join(base, expected),
    );
    // Every level without it answered without an error built and thrown.
    expect(thrown).toEqual([]);
  });
});

describe('walkQwenPackage reads each entry’s type off its lstat mode', () => {
  // (A link's way is judged by StrictModes, which asks its own lstat answers; the walk itself does not.)
  it('walks the same tree when the lstat answers’ type methods are never called', () => {
    const pkg = path.join(base, 'pkg');
    fs.mkdirSync(path.join(pkg, 'chunks'), { recursive: true });
    fs.writeFileSync(path.join(pkg, 'cli.js'), '');
    fs.writeFileSync(path.join(pkg, 'chunks/a.js'), '');
    const real = fs as unknown as QwenPackageFs;
    // ~1400 entries per launch made Node's Stats methods hot enough for V8's optimizing compiler.
    const noMethods = {
      ...real,
      lstatSync: (file: string) => {
        const { uid, mode } = fs.lstatSync(file);
        const refuse = () => {
          throw new Error(`a type method was called for ${file}`);
        };
        return { uid, mode, isDirectory: refuse, isSymbolicLink: refuse };
      },
    } as QwenPackageFs;
    const cli = path.join(pkg, 'cli.js');
    const walked = walkQwenPackage(cli, noMethods, { walkAnyDirectory: true });
    expect(walked).toEqual(walkQwenPackage(cli, real, { walkAnyDirectory: true }));
    expect(walked).toMatchObject({ kind: 'walked', entries: 4 });
  });
});
