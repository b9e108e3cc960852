// describeProvider / providerRoutes: the one description of a provider config. The routes table is
// what a broker pins; the engine must send exactly the described requests, byte for byte.
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/config/schema.js';
import type { Transport, TransportRequest } from '../../../src/http/transport.js';
import { describeProvider, providerRoutes } from '../../../src/providers/describe.js';
import { createProvider } from '../../../src/providers/factory.js';
import { requestUrl } from '../../../src/providers/request.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';

const generic: ProviderConfig = {
  type: 'generic-http-search-v1',
  baseUrl: 'https://context.example.com/',
  tokenEnv: 'T',
};
const dataworks: ProviderConfig = {
  type: 'dataworks-bff-memory-v1',
  baseUrl: 'https://bff.example.com',
  tokenEnv: 'T',
};
const legacy: ProviderConfig = { type: 'mem0-platform-v3', apiKeyEnv: 'K', appId: 'app' };
const mem0 = (preset: string, scope: Record<string, string>, basePath = ''): ProviderConfig =>
  ({
    type: 'mem0',
    preset,
    endpoint: { origin: 'https://m.example.com', basePath },
    credentialEnv: 'K',
    scope,
  }) as ProviderConfig;

const BEARER = { header: 'authorization', prefix: 'Bearer ' };
const TOKEN = { header: 'authorization', prefix: 'Token ' };
const API_KEY = { header: 'x-api-key', prefix: '' };
const route = (
  operation: 'search' | 'remember',
  origin: string,
  path: string,
  credential: { header: string; prefix: string },
) => ({ operation, method: 'POST', origin, path, credential });

describe('providerRoutes: the pinned (method, origin, path) and credential header of every operation', () => {
  it.each<[string, ProviderConfig, ReturnType<typeof route>[]]>([
    [
      'generic-http-search-v1 (search only)',
      generic,
      [route('search', 'https://context.example.com', '/v1/context/search', BEARER)],
    ],
    [
      'dataworks-bff-memory-v1',
      dataworks,
      [
        route('search', 'https://bff.example.com', '/dmai/mem0MemoriesSearch', BEARER),
        route('remember', 'https://bff.example.com', '/dmai/mem0MemoriesAdd', BEARER),
      ],
    ],
    [
      'legacy mem0-platform-v3 block',
      legacy,
      [
        route('search', 'https://api.mem0.ai', '/v3/memories/search/', TOKEN),
        route('remember', 'https://api.mem0.ai', '/v3/memories/add/', TOKEN),
      ],
    ],
    [
      'mem0-v3',
      mem0('mem0-v3', { appId: 'a' }),
      [
        route('search', 'https://m.example.com', '/v3/memories/search/', TOKEN),
        route('remember', 'https://m.example.com', '/v3/memories/add/', TOKEN),
      ],
    ],
    [
      'mem0-oss-rest-2026-08 under a basePath',
      mem0('mem0-oss-rest-2026-08', { userId: 'u' }, '/mem0/'),
      [
        route('search', 'https://m.example.com', '/mem0/search', API_KEY),
        route('remember', 'https://m.example.com', '/mem0/memories', API_KEY),
      ],
    ],
    [
      'aliyun-polardb-mysql-2026-08',
      mem0('aliyun-polardb-mysql-2026-08', { userId: 'u' }),
      [
        route('search', 'https://m.example.com', '/v2/memories/search', TOKEN),
        route('remember', 'https://m.example.com', '/v1/memories', TOKEN),
      ],
    ],
    [
      'mem0-v2',
      mem0('mem0-v2', { userId: 'u' }),
      [
        route('search', 'https://m.example.com', '/v2/memories/search', TOKEN),
        route('remember', 'https://m.example.com', '/v1/memories', TOKEN),
      ],
    ],
  ])('%s', (_label, config, routes) => {
    expect(providerRoutes(config)).toEqual(routes);
  });

  it('the legacy block follows platformOrigin (a test hook, never in config)', () => {
    expect(providerRoutes(legacy, { platformOrigin: 'http://127.0.0.1:4567' }).map(requestUrl)).toEqual([
      'http://127.0.0.1:4567/v3/memories/search/',
      'http://127.0.0.1:4567/v3/memories/add/',
    ]);
  });

  it('refuses a block no request may go out for, like the engine', () => {
    expect(() => providerRoutes(mem0('mem0-oss-rest-2026-08', { appId: 'a' }))).toThrow(
      expect.objectContaining({ code: 'scope-invalid' }),
    );
    expect(() => providerRoutes({ ...generic, type: 'toString' } as unknown as ProviderConfig)).toThrow(
      expect.objectContaining({ code: 'schema-invalid' }),
    );
  });
});

function recordingTransport(answer: string): { transport: Transport; sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  return {
    sent,
    transport: {
      async post(request) {
        sent.push(request);
        return {
          status: 200,
          headers: {},
          body: (async function* () {
            yield new TextEncoder().encode(answer);
          })(),
          cancel: () => {},
        };
      },
    },
  };
}

describe('the engine sends exactly the described request', () => {
  it.each<[string, ProviderConfig]>([
    ['generic', generic],
    ['dataworks', dataworks],
    ['legacy', legacy],
    ['mem0-oss-rest-2026-08', mem0('mem0-oss-rest-2026-08', { userId: 'u', agentId: 'g' })],
    [
      'aliyun-polardb-mysql-2026-08',
      mem0('aliyun-polardb-mysql-2026-08', { userId: 'u', agentId: 'g' }, '/p'),
    ],
  ])('%s: search and remember', async (_label, config) => {
    const { transport, sent } = recordingTransport('{"code":0,"data":[],"items":[],"results":[]}');
    const provider = createProvider(config, CANARY, { transport });
    await provider.search({ query: 'q', limit: 3, signal: AbortSignal.timeout(5_000) });
    await provider.writer?.remember({ content: 'c', signal: AbortSignal.timeout(5_000) });
    const contract = describeProvider(config);
    const described = [contract.search.request('q', 3), contract.remember?.request('c')].filter(
      (r) => r !== undefined,
    );
    expect(sent.map((r) => ({ url: r.url, headers: r.headers, body: r.body }))).toEqual(
      described.map((r) => ({
        url: requestUrl(r),
        headers: { ...r.headers, [r.credential.header]: `${r.credential.prefix}${CANARY}` },
        body: JSON.stringify(r.body),
      })),
    );
  });
});
