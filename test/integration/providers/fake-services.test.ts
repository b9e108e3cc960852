// The fakes reproduce the documented behaviour of the real services (docs/contracts.md,
// "Mem0 presets"), shown through our own HTTP client.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CredentialHeader, postJson } from '../../../src/http/client.js';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { isUuid } from '../../../src/providers/mem0/write-outcome.js';
import { startMem0Oss, startMem0Platform, startPolarDbMem0 } from '../../fixtures/fake-services/index.js';
import type { FakeService } from '../../fixtures/fake-services/service.js';

const KEY = 'canary-cred-7Q9xZp2LmW4vK8';
const transport = createNodeTransport({ timeoutMs: 5_000 });

/** The JSON answer, or `{status}` for an HTTP-status failure. */
async function call(url: string, credential: CredentialHeader, body: unknown): Promise<unknown> {
  try {
    return await postJson(transport, { url, credential, body, signal: AbortSignal.timeout(5_000) });
  } catch (error) {
    return { status: (error as { status?: number }).status };
  }
}

const apiKey: CredentialHeader = { name: 'x-api-key', value: KEY };
const search = { query: 'q', filters: { user_id: 'u' } };

describe('Mem0 OSS REST fake', () => {
  let oss: FakeService;
  beforeAll(async () => {
    oss = await startMem0Oss({ apiKey: KEY });
  });
  afterAll(() => oss.close());
  beforeEach(() => {
    oss.requests.length = 0;
  });

  it.each<[string, string, CredentialHeader, unknown, unknown]>([
    ['/search/ is a 404 (no trailing slash)', '/search/', apiKey, search, { status: 404 }],
    ['/v1/search is a 404 (no /v1 prefix)', '/v1/search', apiKey, search, { status: 404 }],
    ['/memories/ is a 404', '/memories/', apiKey, { messages: [], user_id: 'u' }, { status: 404 }],
    [
      'Bearer is treated as a JWT and rejected',
      '/search',
      { name: 'authorization', value: `Bearer ${KEY}` },
      search,
      {
        status: 401,
      },
    ],
    [
      'Authorization: Token is ignored (no API key)',
      '/search',
      { name: 'authorization', value: `Token ${KEY}` },
      search,
      {
        status: 401,
      },
    ],
    [
      'a wrong X-API-Key is refused',
      '/search',
      { name: 'x-api-key', value: 'wrong' },
      search,
      { status: 403 },
    ],
    [
      'search without an id in filters is a 400',
      '/search',
      apiKey,
      { query: 'q', filters: {} },
      { status: 400 },
    ],
    [
      'search with ids only at the root is a 400',
      '/search',
      apiKey,
      { query: 'q', user_id: 'u' },
      { status: 400 },
    ],
    ['search without query is a 422', '/search', apiKey, { filters: { user_id: 'u' } }, { status: 422 }],
    [
      'add without any id is a 400',
      '/memories',
      apiKey,
      { messages: [{ role: 'user', content: 'x' }] },
      { status: 400 },
    ],
    ['add without messages is a 422', '/memories', apiKey, { user_id: 'u' }, { status: 422 }],
  ])('%s', async (_label, path, credential, body, expected) => {
    expect(await call(`${oss.url}${path}`, credential, body)).toEqual(expected);
    expect(oss.requests).toHaveLength(1);
  });

  it('add answers {"results":[{id, memory, event:"ADD"}]} and search then finds it with the documented fields', async () => {
    const added = (await call(`${oss.url}/memories`, apiKey, {
      messages: [{ role: 'user', content: 'prefers tabs' }],
      user_id: 'u',
      agent_id: 'g',
      infer: false,
    })) as { results: Record<string, unknown>[] };
    expect(added.results).toEqual([{ id: expect.any(String), memory: 'prefers tabs', event: 'ADD' }]);
    const found = (await call(`${oss.url}/search`, apiKey, { query: 'tabs', filters: { user_id: 'u' } })) as {
      results: Record<string, unknown>[];
    };
    expect(found.results).toEqual([
      {
        id: added.results[0]!['id'],
        memory: 'prefers tabs',
        hash: expect.any(String),
        metadata: null,
        score: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        user_id: 'u',
        agent_id: 'g',
      },
    ]);
  });

  it('search returns top_k = 20 by default', async () => {
    const fresh = await startMem0Oss({ apiKey: KEY });
    try {
      for (let i = 0; i < 25; i++) {
        await call(`${fresh.url}/memories`, apiKey, {
          messages: [{ role: 'user', content: `m ${i}` }],
          user_id: 'u',
        });
      }
      const found = (await call(`${fresh.url}/search`, apiKey, {
        query: 'm',
        filters: { user_id: 'u' },
      })) as {
        results: unknown[];
      };
      expect(found.results).toHaveLength(20);
    } finally {
      await fresh.close();
    }
  });

  it('can be scripted to answer 502 with a {"detail"} body', async () => {
    oss.script('POST /search', { status: 502, json: { detail: 'upstream' } });
    expect(await call(`${oss.url}/search`, apiKey, search)).toEqual({ status: 502 });
    oss.unscript();
  });
});

describe('Mem0 Platform fake', () => {
  let platform: FakeService;
  const token: CredentialHeader = { name: 'authorization', value: `Token ${KEY}` };
  beforeAll(async () => {
    platform = await startMem0Platform({ apiKey: KEY });
  });
  afterAll(() => platform.close());

  it('adds asynchronously: {"event_id": <uuid>, "status": "PENDING"}, then search finds the memory', async () => {
    const added = (await call(`${platform.url}/v3/memories/add/`, token, {
      messages: [{ role: 'user', content: 'ships on Tuesdays' }],
      infer: false,
      app_id: 'a',
    })) as Record<string, unknown>;
    expect(Object.keys(added).sort()).toEqual(['event_id', 'status']);
    expect(added['status']).toBe('PENDING');
    expect(isUuid(added['event_id'])).toBe(true);
    const found = (await call(`${platform.url}/v3/memories/search/`, token, {
      query: 'Tuesdays',
      filters: { app_id: 'a' },
    })) as { results: Record<string, unknown>[] };
    expect(found.results.map((r) => [r['memory'], r['app_id']])).toEqual([['ships on Tuesdays', 'a']]);
  });

  it.each<[string, string, CredentialHeader, { status: number }]>([
    ['routes need the trailing slash', '/v3/memories/search', token, { status: 404 }],
    [
      'Bearer is not the Platform scheme',
      '/v3/memories/search/',
      { name: 'authorization', value: `Bearer ${KEY}` },
      {
        status: 401,
      },
    ],
    [
      'X-API-Key is not the Platform scheme',
      '/v3/memories/search/',
      { name: 'x-api-key', value: KEY },
      { status: 401 },
    ],
  ])('%s', async (_label, path, credential, expected) => {
    expect(
      await call(`${platform.url}${path}`, credential, { query: 'q', filters: { app_id: 'a' } }),
    ).toEqual(expected);
  });
});

describe('PolarDB Mem0 fake', () => {
  it('speaks the OSS bodies at /v2/memories/search and /v1/memories with Token auth', async () => {
    const polar = await startPolarDbMem0({ apiKey: KEY });
    const token: CredentialHeader = { name: 'authorization', value: `Token ${KEY}` };
    try {
      const added = (await call(`${polar.url}/v1/memories`, token, {
        messages: [{ role: 'user', content: 'uses PolarDB' }],
        infer: false,
        user_id: 'u',
        agent_id: 'g',
      })) as { results: unknown[] };
      expect(added.results).toEqual([{ id: expect.any(String), memory: 'uses PolarDB', event: 'ADD' }]);
      const found = (await call(`${polar.url}/v2/memories/search`, token, {
        query: 'PolarDB',
        top_k: 5,
        filters: { user_id: 'u' },
        agent_id: 'g',
      })) as { results: Record<string, unknown>[] };
      expect(found.results.map((r) => r['memory'])).toEqual(['uses PolarDB']);
      expect(
        await call(`${polar.url}/v2/memories/search`, { name: 'x-api-key', value: KEY }, { query: 'q' }),
      ).toEqual({
        status: 401,
      });
    } finally {
      await polar.close();
    }
  });
});
