import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextServer } from '../../../src/serve/server.js';
import { makeFolder, post, removeFolder, search, start, wireResponse } from './harness.js';

const KNOWLEDGE = resolve(import.meta.dirname, '../../../examples/knowledge');

describe('search over examples/knowledge', () => {
  let server: ContextServer;
  beforeAll(async () => {
    server = await start({ dir: KNOWLEDGE });
  });
  afterAll(() => server.close());

  it.each([
    ['How should deployment work?', 'deployment-process.md#how-a-deployment-works'],
    ['rollback a database migration', 'database-migrations.md#rolling-back-a-migration'],
    ['on-call severity levels', 'runbooks/on-call.md#severity-levels'],
    ['what is the API deprecation and sunset policy', 'api-versioning-policy.md#deprecation-and-sunset'],
    ['why were invoices delayed in November', 'postmortems/2025-11-04-invoice-delays.md#summary'],
  ])('ranks the right section first for %j', async (query, id) => {
    const items = await search(server, query);
    expect(items[0]?.id).toBe(id);
  });

  it('answers the demo prompt with deployment sections, best first, at most 5', async () => {
    const items = await search(server, 'How should deployment work?');
    expect(items.length).toBeGreaterThan(1);
    expect(items.length).toBeLessThanOrEqual(5);
    expect(items.slice(0, 2).map((item) => item.uri)).toEqual([
      'deployment-process.md#how-a-deployment-works',
      'deployment-process.md#deployment-process',
    ]);
    const scores = items.map((item) => item.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('returns a complete item: chunk text, heading path title, path#anchor uri, file mtime', async () => {
    const [item] = await search(server, 'rollback a database migration', 1);
    const mtime = (await stat(join(KNOWLEDGE, 'database-migrations.md'))).mtime;
    expect(item).toEqual({
      id: 'database-migrations.md#rolling-back-a-migration',
      content: expect.stringMatching(/^## Rolling back a migration\n\nA deployment rollback never runs down/),
      title: 'Database migration guide › Rolling back a migration',
      uri: 'database-migrations.md#rolling-back-a-migration',
      score: expect.any(Number),
      updated_at: mtime.toISOString(),
    });
  });

  it('serves a plain-text file as a single anchorless item', async () => {
    const items = await search(server, 'glossary minor units cents');
    expect(items.find((item) => item.id === 'glossary.txt')).toMatchObject({
      uri: 'glossary.txt',
      title: 'glossary.txt',
      content: expect.stringMatching(/^Ledger team glossary/),
    });
  });

  it.each([1, 2, 3, 4, 5])('returns at most limit=%i items', async (limit) => {
    const items = await search(server, 'deployment rollback migration invoice queue', limit);
    expect(items).toHaveLength(limit);
  });

  it('answers a query that matches nothing with an empty list', async () => {
    const response = await post(server, { query: 'zebra quantum saxophone', limit: 5 });
    expect([response.status, await response.json()]).toEqual([200, { items: [] }]);
  });

  it('sends JSON that is never cached', async () => {
    const response = await post(server, { query: 'canary', limit: 5 });
    expect({
      status: response.status,
      type: response.headers.get('content-type'),
      cache: response.headers.get('cache-control'),
      nosniff: response.headers.get('x-content-type-options'),
      valid: wireResponse.safeParse(await response.json()).success,
    }).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
      nosniff: 'nosniff',
      valid: true,
    });
  });

  it('accepts a multi-line Unicode query (CJK, newline, emoji)', async () => {
    const items = await search(server, '部署 deployment\nwindows 🚀');
    expect(items[0]?.id).toBe('deployment-process.md#deploy-windows-and-change-freezes');
  });
});

describe('search over a CJK folder', () => {
  let dir: string;
  let server: ContextServer;
  beforeAll(async () => {
    dir = await makeFolder({
      '运维/部署.md':
        '# 部署流程\n\n先在预发环境验证，再逐步发布到生产。\n\n## 回滚\n\n出现错误时立即回滚到上一个镜像。\n',
      'notes.md': '# Notes\n\nNothing about releases here.\n',
    });
    server = await start({ dir });
  });
  afterAll(async () => {
    await server.close();
    await removeFolder(dir);
  });

  it('finds CJK sections and keeps CJK anchors in the uri', async () => {
    const items = await search(server, '如何回滚？');
    expect(items[0]).toMatchObject({
      id: '运维/部署.md#回滚',
      uri: '运维/部署.md#回滚',
      title: '部署流程 › 回滚',
    });
  });
});
