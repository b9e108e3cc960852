// isInsideRoot: the session's directory is the repository root or beneath it, decided on real paths.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInsideRoot } from '../../../src/recall/inside-root.js';

describe('cwd containment', () => {
  let dir: string;
  let root: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-cwd-')));
    root = path.join(dir, 'repo');
    fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'repo-other'));
    fs.mkdirSync(path.join(dir, '..repo'), { recursive: true });
    fs.mkdirSync(path.join(root, '..hidden'));
    fs.symlinkSync(path.join(dir, 'repo-other'), path.join(root, 'escape'));
    fs.symlinkSync(path.join(root, 'src'), path.join(dir, 'link-into-repo'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'x');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each<[string, () => string, boolean]>([
    ['the root itself', () => root, true],
    ['a subdirectory', () => path.join(root, 'src', 'deep'), true],
    ['a directory named ..hidden inside', () => path.join(root, '..hidden'), true],
    ['a symlink from outside into the root', () => path.join(dir, 'link-into-repo'), true],
    ['a textual prefix sibling', () => path.join(dir, 'repo-other'), false],
    ['a symlink escaping the root', () => path.join(root, 'escape'), false],
    ['the parent', () => dir, false],
    ['a relative path', () => 'repo', false],
    ['a file inside', () => path.join(root, 'file.txt'), false],
    ['a missing directory', () => path.join(root, 'missing'), false],
    ['dot-dot traversal out', () => path.join(root, 'src', '..', '..', 'repo-other'), false],
  ])('%s → %s', (_name, cwd, expected) => {
    expect(isInsideRoot(cwd(), root)).toBe(expected);
  });
});
