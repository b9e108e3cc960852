import { describe, expect, it } from 'vitest';
import { isIndexableName, isInside } from '../../../src/serve/corpus.js';

describe('isIndexableName', () => {
  it.each<[string, 'file' | 'directory', boolean]>([
    ['guide.md', 'file', true],
    ['guide.MD', 'file', true],
    ['guide.markdown', 'file', true],
    ['notes.txt', 'file', true],
    ['page.html', 'file', false],
    ['README', 'file', false],
    ['.hidden.md', 'file', false],
    ['docs', 'directory', true],
    ['.git', 'directory', false],
  ])('%s (%s) → %s', (name, kind, ok) => {
    expect(isIndexableName(name, kind)).toBe(ok);
  });
});

describe('isInside', () => {
  it.each([
    ['/srv/docs', '/srv/docs', true],
    ['/srv/docs', '/srv/docs/a/b.md', true],
    ['/srv/docs', '/srv/docs-old/a.md', false],
    ['/srv/docs', '/srv/a.md', false],
    ['/srv/docs', '/etc/passwd', false],
    ['/srv/docs', '/srv/docs/..evil.md', true],
  ])('%s contains %s → %s', (root, target, inside) => {
    expect(isInside(root, target)).toBe(inside);
  });
});
