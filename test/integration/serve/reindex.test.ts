import { rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContextServer } from '../../../src/serve/server.js';
import { makeFolder, removeFolder, search, start, writeFiles } from './harness.js';

const HOUR = 60 * 60 * 1000;

describe('re-indexing', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function serve(files: Record<string, string | Uint8Array>, rescanIntervalMs: number) {
    const dir = await makeFolder(files);
    const server = await start({ dir, rescanIntervalMs });
    cleanup.push(
      () => removeFolder(dir),
      () => server.close(),
    );
    return { dir, server };
  }

  const ids = async (server: ContextServer, query: string) =>
    (await search(server, query)).map((item) => item.id);

  it('finds edited text and forgets the old text', async () => {
    const { dir, server } = await serve({ 'runbook.md': '# Paging\n\nCall the pager hotline.\n' }, 0);
    await writeFile(join(dir, 'runbook.md'), '# Paging\n\nOpen an incident channel first, then escalate.\n');
    expect([await ids(server, 'hotline'), await ids(server, 'incident channel')]).toEqual([
      [],
      ['runbook.md#paging'],
    ]);
  });

  it('picks up a new section inside an existing file', async () => {
    const { dir, server } = await serve({ 'guide.md': '# Guide\n\nIntro text.\n' }, 0);
    await writeFile(
      join(dir, 'guide.md'),
      '# Guide\n\nIntro text.\n\n## Backups\n\nSnapshots run nightly.\n',
    );
    expect(await ids(server, 'nightly snapshots')).toEqual(['guide.md#backups']);
  });

  it('finds a file added after start, in a new subfolder', async () => {
    const { dir, server } = await serve({ 'a.md': '# A\n\nalpha\n' }, 0);
    await writeFiles(dir, { 'team/new.md': '# Flags\n\nFeature toggles decouple release from deploy.\n' });
    expect(await ids(server, 'feature toggles')).toEqual(['team/new.md#flags']);
  });

  it('drops a deleted file', async () => {
    const { dir, server } = await serve({ 'a.md': '# A\n\nalpha beta\n', 'b.md': '# B\n\nbeta gamma\n' }, 0);
    await rm(join(dir, 'a.md'));
    expect(await ids(server, 'beta')).toEqual(['b.md#b']);
  });

  it('reports the file modification time as updated_at and follows it when it changes', async () => {
    const { dir, server } = await serve({ 'a.md': '# A\n\nalpha\n' }, 0);
    const first = new Date('2025-01-02T03:04:05.678Z');
    const second = new Date('2026-07-23T00:00:00.000Z');
    await utimes(join(dir, 'a.md'), first, first);
    const before = (await search(server, 'alpha'))[0]?.updated_at;
    await utimes(join(dir, 'a.md'), second, second);
    const after = (await search(server, 'alpha'))[0]?.updated_at;
    expect([before, after]).toEqual([first.toISOString(), second.toISOString()]);
  });

  it('serves the last scan until the interval passes, and refresh() rescans on demand', async () => {
    const { dir, server } = await serve({ 'a.md': '# A\n\nalpha\n' }, HOUR);
    await writeFiles(dir, { 'b.md': '# B\n\nalpha omega\n' });
    const stale = await ids(server, 'omega');
    await server.refresh();
    expect([stale, await ids(server, 'omega')]).toEqual([[], ['b.md#b']]);
  });

  it('skips a file that is not UTF-8 and keeps serving the rest', async () => {
    const { dir, server } = await serve({ 'good.md': '# Good\n\nalpha\n' }, 0);
    await writeFiles(dir, {
      'bad.md': new Uint8Array([0x23, 0x20, 0xff, 0xfe, 0x0a, 0x61, 0x6c, 0x70, 0x68, 0x61]),
    });
    expect(await ids(server, 'alpha')).toEqual(['good.md#good']);
  });

  it('re-reads a file that became readable UTF-8', async () => {
    const { dir, server } = await serve({ 'doc.md': new Uint8Array([0xff, 0x0a]) }, 0);
    const before = await ids(server, 'alpha');
    await writeFile(join(dir, 'doc.md'), '# Doc\n\nalpha\n');
    expect([before, await ids(server, 'alpha')]).toEqual([[], ['doc.md#doc']]);
  });

  it('refuses to start on a folder that does not exist', async () => {
    const dir = await makeFolder({});
    cleanup.push(() => removeFolder(dir));
    await expect(start({ dir: join(dir, 'missing') })).rejects.toThrow();
  });
});
