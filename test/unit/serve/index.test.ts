import { describe, expect, it } from 'vitest';
import { chunkMarkdown } from '../../../src/serve/chunker.js';
import { ChunkIndex, chunkId, chunkUri, MAX_HIT_CHARS } from '../../../src/serve/index.js';

const MTIME = Date.parse('2026-07-23T00:00:00.000Z');

function indexOf(files: Record<string, string>): ChunkIndex {
  const index = new ChunkIndex();
  for (const [path, text] of Object.entries(files)) {
    index.setFile({ path, mtimeMs: MTIME, chunks: chunkMarkdown(text) });
  }
  return index;
}

describe('chunkId and chunkUri', () => {
  it.each([
    ['guide.md', 'setup', 'guide.md#setup', 'guide.md#setup'],
    ['notes.txt', '', 'notes.txt', 'notes.txt'],
    ['team docs/a#b?.md', 'x', 'team docs/a#b?.md#x', 'team%20docs/a%23b%3F.md#x'],
    ['文档/部署.md', '回滚', '文档/部署.md#回滚', '文档/部署.md#回滚'],
  ])('%s + %j', (path, anchor, id, uri) => {
    expect([chunkId(path, anchor), chunkUri(path, anchor)]).toEqual([id, uri]);
  });
});

describe('ChunkIndex', () => {
  const index = indexOf({
    'deploy.md':
      '# Deploying\nShip the container image to staging, then production.\n## Rollback\nRe-deploy the previous image.',
    'cooking.md': '# Soup\nSimmer the vegetables for twenty minutes.',
  });

  it('returns whole hits best first with a stable path#anchor id', () => {
    expect(index.search('rollback previous image', 5)[0]).toEqual({
      id: 'deploy.md#rollback',
      content: '## Rollback\nRe-deploy the previous image.',
      title: 'Deploying › Rollback',
      uri: 'deploy.md#rollback',
      score: expect.any(Number),
      updatedAt: '2026-07-23T00:00:00.000Z',
    });
  });

  it('orders by descending finite score', () => {
    const scores = index.search('image staging production', 5).map((hit) => hit.score);
    expect(scores.length).toBeGreaterThan(1);
    expect(scores.every(Number.isFinite)).toBe(true);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it.each([
    ['a word nowhere in the corpus', 'spaceship'],
    ['only stop words', 'how should it be'],
    ['only punctuation', '?!…'],
  ])('finds nothing for %s', (_name, query) => {
    expect(index.search(query, 5)).toEqual([]);
  });

  it('honours the limit', () => {
    expect(index.search('image vegetables deploying soup', 1)).toHaveLength(1);
  });

  it('matches word prefixes and small typos', () => {
    expect(index.search('deploy', 5).map((hit) => hit.id)).toContain('deploy.md#deploying');
    expect(index.search('vegetabels', 5).map((hit) => hit.id)).toEqual(['cooking.md#soup']);
  });

  it('finds CJK text by its characters', () => {
    const cjk = indexOf({
      'zh.md': '# 部署流程\n先在预发环境验证，再发布到生产。',
      'en.md': '# Other\nNothing here.',
    });
    expect(cjk.search('部署', 5).map((hit) => hit.id)).toEqual(['zh.md#部署流程']);
  });

  it('replaces every chunk of a file on setFile and forgets them on removeFile', () => {
    const live = indexOf({ 'a.md': '# Old\nalpha', 'b.md': '# Keep\nbeta' });
    live.setFile({ path: 'a.md', mtimeMs: MTIME, chunks: chunkMarkdown('# New\ngamma') });
    expect([live.search('alpha', 5), live.search('gamma', 5).map((h) => h.id)]).toEqual([[], ['a.md#new']]);
    live.removeFile('a.md');
    expect([live.search('gamma', 5), live.fileCount, live.chunkCount]).toEqual([[], 1, 1]);
  });

  it('bounds returned content and marks the cut', () => {
    const long = indexOf({ 'long.md': `# Long\n${'word '.repeat(2000)}` });
    const [hit] = long.search('word', 1);
    expect([Array.from(hit!.content).length, hit!.content.endsWith('…')]).toEqual([MAX_HIT_CHARS, true]);
  });

  it('titles a chunk without a heading by its file name', () => {
    const plain = new ChunkIndex();
    plain.setFile({
      path: 'notes/glossary.txt',
      mtimeMs: MTIME,
      chunks: [{ anchor: '', headings: [], text: 'Canary: a small share.' }],
    });
    expect(plain.search('canary', 5).map((hit) => [hit.id, hit.title])).toEqual([
      ['notes/glossary.txt', 'glossary.txt'],
    ]);
  });
});
