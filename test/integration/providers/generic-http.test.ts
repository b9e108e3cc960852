// Generic HTTP Search v1 against its loopback fake: wire bytes, Bearer auth, normalisation, ≤ 5.
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { createProvider } from '../../../src/providers/factory.js';
import { GENERIC_SEARCH_ROUTE, startGenericSearch } from '../../fixtures/fake-services/index.js';
import type { FakeService } from '../../fixtures/fake-services/service.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';
let fake: FakeService | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function provider(url: string, token = CANARY) {
  return createProvider(
    { type: 'generic-http-search-v1', baseUrl: url, tokenEnv: 'CONTEXT_API_TOKEN' },
    token,
    {
      transport: createNodeTransport({ timeoutMs: 5_000 }),
    },
  );
}
const search = (url: string, token?: string, query = 'deployment policy') =>
  provider(url, token).search({ query, limit: 5, signal: AbortSignal.timeout(5_000) });

describe('Generic HTTP Search v1', () => {
  it('sends exactly POST /v1/context/search, Bearer, {"query","limit":5} and maps the documented item', async () => {
    fake = await startGenericSearch({
      token: CANARY,
      documents: [
        {
          id: 'opaque-id',
          content: 'deployment policy: retrieved text',
          title: 'optional title',
          uri: 'optional provenance URI',
          score: 0.82,
          updated_at: '2026-07-23T00:00:00Z',
        },
      ],
    });
    const query = '多行\n查询 🚀 "quoted" deployment';
    expect(await search(fake.url, CANARY, query)).toEqual([
      {
        id: 'opaque-id',
        content: 'deployment policy: retrieved text',
        title: 'optional title',
        uri: 'optional provenance URI',
        score: 0.82,
        updatedAt: '2026-07-23T00:00:00Z',
      },
    ]);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect([request!.method, request!.path, request!.rawBody.toString('utf8')]).toEqual([
      'POST',
      '/v1/context/search',
      JSON.stringify({ query, limit: 5 }),
    ]);
    expect(request!.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${CANARY}`,
      'content-length': String(request!.rawBody.length),
      host: fake.url.slice('http://'.length),
      connection: 'close',
    });
  });

  it('drops bad items one by one and keeps the first 5 valid ones', async () => {
    fake = await startGenericSearch({ token: CANARY });
    const good = (n: number) => ({ id: `g${n}`, content: `c${n}` });
    fake.script(GENERIC_SEARCH_ROUTE, {
      json: {
        items: [
          good(1),
          { id: 'no-content' },
          good(2),
          { content: 'no id' },
          7,
          good(3),
          good(4),
          good(5),
          good(6),
        ],
      },
    });
    expect((await search(fake.url)).map((i) => i.id)).toEqual(['g1', 'g2', 'g3', 'g4', 'g5']);
  });

  it.each([
    ['a results envelope', { results: [] }],
    ['an array root', []],
    ['items as an object', { items: {} }],
  ])('fails on %s', async (_label, json) => {
    fake = await startGenericSearch({ token: CANARY });
    fake.script(GENERIC_SEARCH_ROUTE, { json });
    await expect(search(fake.url)).rejects.toMatchObject({ kind: 'invalid-response' });
  });

  it('a wrong token is an HTTP 401 failure, one request, no credential in the error', async () => {
    fake = await startGenericSearch({ token: 'the-right-token' });
    const error = await search(fake.url).catch((e: Error) => e);
    expect(error).toMatchObject({ kind: 'http-status', status: 401 });
    expect(String((error as Error).stack)).not.toContain(CANARY);
    expect(fake.requests).toHaveLength(1);
  });

  it('has no writer', () => {
    expect(provider('https://context.example.com').writer).toBeUndefined();
  });
});
