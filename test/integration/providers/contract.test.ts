// The wire contract of every Mem0 preset and alias (and the legacy Platform block), against loopback
// fakes of the real services: method, path, headers and body bytes for search and write, scope
// placement, basePath joining, and the round trip through the fake's memory store.
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/config/schema.js';
import type { Mem0PresetName } from '../../../src/contracts/mem0-presets.js';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { createProvider } from '../../../src/providers/factory.js';
import type { RememberResult } from '../../../src/providers/types.js';
import {
  DATAWORKS_INVALID_PARAMETER,
  DATAWORKS_SEARCH_ROUTE,
  startDataworksBff,
  startMem0Oss,
  startMem0Platform,
  startPolarDbMem0,
} from '../../fixtures/fake-services/index.js';
import type { FakeService, RecordedRequest } from '../../fixtures/fake-services/service.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';
const U = 'repository-memory';
const G = 'qwen-code';
const A = 'app-memory';
const CONTENT = 'Deploys go through the release train on Tuesdays.';
const QUERY = 'release train';
const MESSAGES = JSON.stringify([{ role: 'user', content: CONTENT }]);

type Service = 'platform' | 'oss' | 'polardb';
const start = (service: Service, basePath?: string): Promise<FakeService> => {
  const options = basePath === undefined ? { apiKey: CANARY } : { apiKey: CANARY, basePath };
  if (service === 'platform') return startMem0Platform(options);
  if (service === 'oss') return startMem0Oss(options);
  return startPolarDbMem0(options);
};

interface Row {
  name: string;
  service: Service;
  config: (origin: string, basePath: string) => ProviderConfig;
  /** Set for the legacy block, whose origin comes from `platformOrigin`. */
  legacy?: boolean;
  credential: [string, string];
  searchPath: string;
  writePath: string;
  searchBody: string;
  writeBody: string;
  writeStatus: RememberResult['status'];
}

const mem0 = (preset: Mem0PresetName, scope: Record<string, string>) => (origin: string, basePath: string) =>
  ({
    type: 'mem0',
    preset,
    endpoint: { origin, basePath },
    credentialEnv: 'MEM0_API_KEY',
    scope,
  }) as ProviderConfig;

const platformRow = (name: string, config: Row['config'], legacy = false): Row => ({
  name,
  service: 'platform',
  config,
  legacy,
  credential: ['authorization', `Token ${CANARY}`],
  searchPath: '/v3/memories/search/',
  writePath: '/v3/memories/add/',
  searchBody: `{"query":"${QUERY}","top_k":5,"threshold":0.1,"rerank":false,"filters":{"app_id":"${A}"}}`,
  writeBody: `{"messages":${MESSAGES},"infer":false,"app_id":"${A}"}`,
  writeStatus: 'accepted',
});
const ossRow = (preset: Mem0PresetName): Row => ({
  name: preset,
  service: 'oss',
  config: mem0(preset, { userId: U, agentId: G }),
  credential: ['x-api-key', CANARY],
  searchPath: '/search',
  writePath: '/memories',
  searchBody: `{"query":"${QUERY}","top_k":5,"filters":{"user_id":"${U}","agent_id":"${G}"}}`,
  writeBody: `{"messages":${MESSAGES},"infer":false,"user_id":"${U}","agent_id":"${G}"}`,
  writeStatus: 'stored',
});
const polarRow = (preset: Mem0PresetName, limitField: string): Row => ({
  name: preset,
  service: 'polardb',
  config: mem0(preset, { userId: U, agentId: G }),
  credential: ['authorization', `Token ${CANARY}`],
  searchPath: '/v2/memories/search',
  writePath: '/v1/memories',
  searchBody: `{"query":"${QUERY}","${limitField}":5,"filters":{"user_id":"${U}"},"agent_id":"${G}"}`,
  writeBody: `{"messages":${MESSAGES},"infer":false,"user_id":"${U}","agent_id":"${G}"}`,
  writeStatus: 'stored',
});

const ROWS: Row[] = [
  platformRow('mem0-platform-v3', mem0('mem0-platform-v3', { appId: A })),
  platformRow('mem0-v3 (alias)', mem0('mem0-v3', { appId: A })),
  platformRow(
    'legacy mem0-platform-v3 block',
    () => ({ type: 'mem0-platform-v3', apiKeyEnv: 'MEM0_API_KEY', appId: A }),
    true,
  ),
  ossRow('mem0-oss-rest-2026-08'),
  ossRow('mem0-oss-2026-08'),
  polarRow('aliyun-polardb-mysql-2026-08', 'top_k'),
  polarRow('mem0-v2', 'limit'),
];

let fake: FakeService | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** Exactly the headers the client sends, with exactly one credential header. */
function expectHeaders(request: RecordedRequest, credential: [string, string], fakeUrl: string): void {
  expect(request.headers).toEqual({
    accept: 'application/json',
    'content-type': 'application/json',
    [credential[0]]: credential[1],
    'content-length': String(request.rawBody.length),
    host: fakeUrl.slice('http://'.length),
    connection: 'close',
  });
  const credentialHeaders = request.rawHeaders.filter(
    (_, i) => i % 2 === 0 && ['authorization', 'x-api-key'].includes(request.rawHeaders[i]!.toLowerCase()),
  );
  expect(credentialHeaders).toEqual([credential[0]]);
}

function build(row: Row, url: string, basePath = '') {
  const transport = createNodeTransport({ timeoutMs: 5_000 });
  return row.legacy === true
    ? createProvider(row.config(url, basePath), CANARY, { transport, platformOrigin: url })
    : createProvider(row.config(url, basePath), CANARY, { transport });
}

describe.each(ROWS)('$name', (row) => {
  it('writes, then finds the memory: exact method, path, headers and body bytes on the wire', async () => {
    fake = await start(row.service);
    const provider = build(row, fake.url);
    const outcome = await provider.writer!.remember({ content: CONTENT, signal: AbortSignal.timeout(5_000) });
    expect(outcome.status).toBe(row.writeStatus);
    const items = await provider.search({ query: QUERY, limit: 5, signal: AbortSignal.timeout(5_000) });
    expect(items.map((i) => i.content)).toEqual([CONTENT]);

    expect(fake.requests.map((r) => [r.method, r.path, r.rawBody.toString('utf8')])).toEqual([
      ['POST', row.writePath, row.writeBody],
      ['POST', row.searchPath, row.searchBody],
    ]);
    for (const request of fake.requests) expectHeaders(request, row.credential, fake.url);
  });
});

// The legacy block has no endpoint, hence no basePath.
describe.each(ROWS.filter((row) => row.legacy !== true))('$name behind a reverse-proxy prefix', (row) => {
  it('joins basePath (trailing / dropped) in front of the preset path', async () => {
    fake = await start(row.service, '/gateway/mem0');
    const provider = build(row, fake.url, '/gateway/mem0/');
    await provider.search({ query: QUERY, limit: 5, signal: AbortSignal.timeout(5_000) });
    await provider.writer!.remember({ content: CONTENT, signal: AbortSignal.timeout(5_000) });
    expect(fake.requests.map((r) => r.path)).toEqual([
      `/gateway/mem0${row.searchPath}`,
      `/gateway/mem0${row.writePath}`,
    ]);
  });
});

describe('search results through the fakes', () => {
  it('OSS REST: items carry the documented fields and are normalised (memory → content, ≤ 5 kept)', async () => {
    const oss = await startMem0Oss({ apiKey: CANARY });
    fake = oss;
    for (let i = 0; i < 8; i++) oss.store.add(`release note ${i}`, { user_id: U, agent_id: G });
    oss.store.add('release note of another user', { user_id: 'someone-else', agent_id: G });
    const provider = build(ROWS[3]!, oss.url);
    const items = await provider.search({
      query: 'release note',
      limit: 5,
      signal: AbortSignal.timeout(5_000),
    });
    expect(items).toHaveLength(5);
    expect(items.every((i) => i.content.startsWith('release note ') && !i.content.includes('another'))).toBe(
      true,
    );
    const first = oss.store.memories[0]!;
    expect(items[0]).toEqual({ id: first.id, content: first.memory, updatedAt: first.updated_at, score: 1 });
  });

  it.each<[Mem0PresetName, string]>([
    ['mem0-v2', CONTENT],
    ['aliyun-polardb-mysql-2026-08', MESSAGES],
  ])('Direct Import stored verbatim: %s reads back %j', async (preset, expected) => {
    fake = await startPolarDbMem0({ apiKey: CANARY, directImport: 'messages-json' });
    const provider = createProvider(mem0(preset, { userId: U })(fake.url, ''), CANARY, {
      transport: createNodeTransport({ timeoutMs: 5_000 }),
    });
    await provider.writer!.remember({ content: CONTENT, signal: AbortSignal.timeout(5_000) });
    const items = await provider.search({
      query: 'role user content',
      limit: 5,
      signal: AbortSignal.timeout(5_000),
    });
    expect(items.map((i) => i.content)).toEqual([expected]);
  });

  it.each([
    ['array root', []],
    ['no results', { memories: [] }],
  ])('a %s answer fails the search with a typed error', async (_label, json) => {
    fake = await startMem0Oss({ apiKey: CANARY });
    fake.script('POST /search', { json });
    const provider = build(ROWS[3]!, fake.url);
    await expect(
      provider.search({ query: 'q', limit: 5, signal: AbortSignal.timeout(5_000) }),
    ).rejects.toMatchObject({
      name: 'ProviderRequestError',
      kind: 'invalid-response',
    });
  });

  it('a failed search throws the HTTP status and never the credential', async () => {
    fake = await startMem0Oss({ apiKey: 'another-key' });
    const provider = build(ROWS[3]!, fake.url);
    const error = await provider
      .search({ query: 'q', limit: 5, signal: AbortSignal.timeout(5_000) })
      .catch((e: Error) => e);
    expect(error).toMatchObject({ kind: 'http-status', status: 403 });
    expect(String((error as Error).stack)).not.toContain(CANARY);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('dataworks-bff-memory-v1 (DataWorks BFF memory v1)', () => {
  const config = (origin: string): ProviderConfig => ({
    type: 'dataworks-bff-memory-v1',
    baseUrl: origin,
    tokenEnv: 'DATAWORKS_TOKEN',
  });
  const provider = (origin: string, token = CANARY) =>
    createProvider(config(origin), token, { transport: createNodeTransport({ timeoutMs: 5_000 }) });

  it('writes, then finds the memory: exact method, path, Bearer header and body bytes, no scope on the wire', async () => {
    fake = await startDataworksBff({ token: CANARY });
    const bff = provider(fake.url);
    const outcome = await bff.writer!.remember({ content: CONTENT, signal: AbortSignal.timeout(5_000) });
    expect(outcome).toEqual({ status: 'stored', providerOperationId: expect.any(String) });
    const items = await bff.search({ query: QUERY, limit: 5, signal: AbortSignal.timeout(5_000) });
    expect(items.map((i) => i.content)).toEqual([CONTENT]);
    expect(fake.requests.map((r) => [r.method, r.path, r.rawBody.toString('utf8')])).toEqual([
      ['POST', '/dmai/mem0MemoriesAdd', `{"messages":${MESSAGES},"infer":false}`],
      ['POST', '/dmai/mem0MemoriesSearch', `{"query":"${QUERY}","top_k":5}`],
    ]);
    for (const request of fake.requests)
      expectHeaders(request, ['authorization', `Bearer ${CANARY}`], fake.url);
  });

  it.each([
    ['id', 'memory', 'list'],
    ['memory_id', 'text', 'results'],
    ['memory_id', 'content', 'list'],
  ] as const)('items with %s and %s, data as a %s: read the same', async (id, content, wrap) => {
    const bff = await startDataworksBff({ token: CANARY, items: { id, content, wrap } });
    fake = bff;
    for (let i = 0; i < 7; i++) bff.store.add(`release note ${i}`, { user_id: `bff:${CANARY}` });
    bff.store.add('release note of another token', { user_id: 'bff:another' });
    const items = await provider(bff.url).search({
      query: 'release note',
      limit: 5,
      signal: AbortSignal.timeout(5_000),
    });
    expect(items).toHaveLength(5);
    const first = bff.store.memories[0]!;
    expect(items[0]).toEqual({ id: first.id, content: first.memory, updatedAt: first.updated_at, score: 1 });
    expect(items.some((i) => i.content.includes('another'))).toBe(false);
  });

  it.each([
    ['an unknown token: HTTP 401 from the gateway', 'wrong-token', {}, { kind: 'http-status', status: 401 }],
    [
      'a token without memory rights: code 403 in an HTTP 200 envelope',
      'read-only',
      {},
      { kind: 'invalid-response' },
    ],
    [
      'Mem0\'s bare {"results"} (no envelope)',
      CANARY,
      { json: { results: [] } },
      { kind: 'invalid-response' },
    ],
    [
      'an envelope whose data has no list',
      CANARY,
      { json: { code: 0, data: { total: 0 } } },
      { kind: 'invalid-response' },
    ],
  ] as const)('a search refused by %s fails with a typed error', async (_label, token, scripted, error) => {
    fake = await startDataworksBff({ token: CANARY, forbiddenTokens: ['read-only'] });
    if ('json' in scripted) fake.script(DATAWORKS_SEARCH_ROUTE, { json: scripted.json });
    const failure = await provider(fake.url, token)
      .search({ query: 'q', limit: 5, signal: AbortSignal.timeout(5_000) })
      .catch((e: Error) => e);
    expect(failure).toMatchObject({ name: 'ProviderRequestError', ...error });
    expect(String((failure as Error).stack)).not.toContain(CANARY);
    expect(fake.requests).toHaveLength(1);
  });

  it('the fake answers its documented errors: an empty query is code 1001, a bad body HTTP 400, another path HTTP 404', async () => {
    fake = await startDataworksBff({ token: CANARY });
    const post = (path: string, body: string) =>
      fetch(`${fake!.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CANARY}`, 'content-type': 'application/json' },
        body,
      }).then(async (r) => [r.status, await r.json()]);
    expect(await post('/dmai/mem0MemoriesSearch', '{"query":" "}')).toEqual([
      200,
      { code: DATAWORKS_INVALID_PARAMETER, message: 'query is required', data: null },
    ]);
    expect(await post('/dmai/mem0MemoriesAdd', '[]')).toEqual([
      400,
      { code: 400, message: 'Bad Request', data: null },
    ]);
    expect(await post('/dmai/memories', '{}')).toEqual([
      404,
      { code: 404, message: 'Not Found', data: null },
    ]);
  });
});
