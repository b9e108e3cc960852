import { execFileSync } from 'node:child_process';
import { mkdir, open, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CorpusFile,
  DEFAULT_CORPUS_LIMITS,
  readCorpusFile,
  scanCorpus,
} from '../../../src/serve/corpus.js';
import { makeFolder, removeFolder } from './harness.js';

const paths = (files: CorpusFile[]) => files.map((file) => file.path);

describe('scanCorpus', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const dir of folders.splice(0)) await removeFolder(dir);
  });
  async function folder(files: Record<string, string>): Promise<string> {
    const dir = await makeFolder(files);
    folders.push(dir);
    return dir;
  }

  it('lists Markdown and text files recursively as sorted relative POSIX paths', async () => {
    const dir = await folder({
      'z.txt': 'z',
      'a.md': 'a',
      'guides/deep/b.markdown': 'b',
      'guides/c.TXT': 'c',
      'guides/image.png': 'x',
      'notes.html': 'x',
    });
    expect(paths(await scanCorpus(dir))).toEqual(['a.md', 'guides/c.TXT', 'guides/deep/b.markdown', 'z.txt']);
  });

  it('skips dotfiles and everything under dot-directories', async () => {
    const dir = await folder({
      '.draft.md': 'x',
      '.git/HEAD.md': 'x',
      'docs/.cache/x.md': 'x',
      'docs/ok.md': 'ok',
    });
    expect(paths(await scanCorpus(dir))).toEqual(['docs/ok.md']);
  });

  it('skips files over the size cap instead of truncating them', async () => {
    const dir = await folder({ 'small.md': 'x'.repeat(10), 'big.md': 'x'.repeat(11) });
    expect(paths(await scanCorpus(dir, { ...DEFAULT_CORPUS_LIMITS, maxFileBytes: 10 }))).toEqual([
      'small.md',
    ]);
  });

  it('stops at the file-count cap', async () => {
    const dir = await folder({ 'a.md': 'a', 'b.md': 'b', 'c.md': 'c' });
    expect(await scanCorpus(dir, { ...DEFAULT_CORPUS_LIMITS, maxFiles: 2 })).toHaveLength(2);
  });

  it('follows a symlink to a file inside the folder, but not one leaving it or one to a directory', async () => {
    const outside = await folder({ 'secret.md': 'do not serve' });
    const dir = await folder({ 'real/guide.md': 'guide' });
    await symlink(join(dir, 'real/guide.md'), join(dir, 'alias.md'));
    await symlink(join(outside, 'secret.md'), join(dir, 'escape.md'));
    await symlink(join(dir, 'real'), join(dir, 'loop'));
    await symlink(join(dir, 'missing.md'), join(dir, 'dangling.md'));
    const files = await scanCorpus(dir);
    expect(paths(files)).toEqual(['alias.md', 'real/guide.md']);
    expect(await readCorpusFile(files[0]!)).toBe('guide');
  });

  it('serves the folder through a symlinked root', async () => {
    const dir = await folder({ 'a.md': 'a' });
    const parent = await folder({});
    await symlink(dir, join(parent, 'docs'));
    expect(paths(await scanCorpus(join(parent, 'docs')))).toEqual(['a.md']);
  });

  it('changes a file version when its content changes', async () => {
    const dir = await folder({ 'a.md': 'one' });
    const [before] = await scanCorpus(dir);
    await writeFile(join(dir, 'a.md'), 'three');
    const [after] = await scanCorpus(dir);
    expect(after!.version).not.toBe(before!.version);
  });

  it.each([
    ['a missing folder', (dir: string) => join(dir, 'nope')],
    ['a file', (dir: string) => join(dir, 'a.md')],
  ])('rejects %s', async (_name, pick) => {
    const dir = await folder({ 'a.md': 'a' });
    await expect(scanCorpus(pick(dir))).rejects.toThrow();
  });
});

describe('readCorpusFile', () => {
  it('returns strict UTF-8 text, or undefined for invalid bytes, a grown file or a vanished file', async () => {
    const dir = await makeFolder({ 'ok.md': 'héllo', 'big.md': 'x' });
    await writeFile(join(dir, 'bad.md'), new Uint8Array([0x68, 0xff]));
    const [bad, big, ok] = await scanCorpus(dir);
    await writeFile(join(dir, 'big.md'), 'x'.repeat(20));
    const tight = { ...DEFAULT_CORPUS_LIMITS, maxFileBytes: 10 };
    const results = [
      await readCorpusFile(ok!),
      await readCorpusFile(bad!),
      await readCorpusFile(big!, tight),
    ];
    await rm(join(dir, 'ok.md'));
    results.push(await readCorpusFile(ok!));
    await removeFolder(dir);
    expect(results).toEqual(['héllo', undefined, undefined, undefined]);
  });

  it('lists nothing for an empty folder', async () => {
    const dir = await makeFolder({});
    await mkdir(join(dir, 'empty'));
    const files = await scanCorpus(dir);
    await removeFolder(dir);
    expect(files).toEqual([]);
  });
});

// The folder may change between a scan and the read that follows it: the read judges what it opened.
describe('readCorpusFile after the folder changed under the scan', () => {
  const folders: string[] = [];
  afterEach(async () => {
    for (const dir of folders.splice(0)) await removeFolder(dir);
  });
  async function scanned(): Promise<{ dir: string; outside: string; file: CorpusFile }> {
    const outside = await makeFolder({ 'secret.md': 'do not serve', 'sub/a.md': 'outside a' });
    const dir = await makeFolder({ 'sub/a.md': 'inside a' });
    folders.push(outside, dir);
    const [file] = await scanCorpus(dir);
    return { dir, outside, file: file! };
  }

  it.each([
    [
      'the file swapped for a symlink leaving the folder',
      async (dir: string, outside: string) => {
        await rm(join(dir, 'sub/a.md'));
        await symlink(join(outside, 'secret.md'), join(dir, 'sub/a.md'));
      },
    ],
    [
      'its directory swapped for a symlink to a folder outside',
      async (dir: string, outside: string) => {
        await rm(join(dir, 'sub'), { recursive: true });
        await symlink(join(outside, 'sub'), join(dir, 'sub'));
      },
    ],
  ])('does not serve %s (negative control: a plain read of the scanned path does)', async (_name, swap) => {
    const { dir, outside, file } = await scanned();
    await swap(dir, outside);
    expect(await readFile(file.absolutePath, 'utf8')).not.toBe('inside a');
    expect(await readCorpusFile(file)).toBeUndefined();
  });

  it('does not hang on the file swapped for a FIFO (negative control: a plain read waits for a writer)', async () => {
    const { dir, file } = await scanned();
    await rm(join(dir, 'sub/a.md'));
    execFileSync('mkfifo', [join(dir, 'sub/a.md')]);
    const plain = readFile(file.absolutePath, 'utf8').then(() => 'read');
    const waited = await Promise.race([plain, delay(300).then(() => 'still waiting')]);
    // Unblocks the plain read: a writer opens and closes the FIFO.
    await (await open(join(dir, 'sub/a.md'), 'w')).close();
    await plain;
    expect(waited).toBe('still waiting');
    // Bounded, so a hang fails this row instead of the file's timeout.
    expect(await Promise.race([readCorpusFile(file), delay(10_000).then(() => 'hung')])).toBeUndefined();
  });
});
