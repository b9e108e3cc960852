// createProvider: which engine, which URL, which writer. The transport here is a recording stub of
// our own Transport interface (the wire itself is covered against real loopback fakes).
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/base/errors.js';
import type { ProviderConfig } from '../../../src/config/schema.js';
import type { Transport, TransportRequest } from '../../../src/http/transport.js';
import { createProvider } from '../../../src/providers/factory.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';

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

const signal = () => AbortSignal.timeout(5_000);

describe('createProvider', () => {
  it('Generic HTTP: search at {origin}/v1/context/search with Bearer, and no writer', async () => {
    const { transport, sent } = recordingTransport('{"items":[]}');
    const provider = createProvider(
      { type: 'generic-http-search-v1', baseUrl: 'https://context.example.com/', tokenEnv: 'T' },
      CANARY,
      { transport },
    );
    expect(provider.writer).toBeUndefined();
    await provider.search({ query: 'q', limit: 5, signal: signal() });
    expect(sent.map((r) => [r.url, r.headers['authorization'], r.body])).toEqual([
      ['https://context.example.com/v1/context/search', `Bearer ${CANARY}`, '{"query":"q","limit":5}'],
    ]);
  });

  it('legacy mem0-platform-v3 block: the Platform V3 preset at https://api.mem0.ai', async () => {
    const { transport, sent } = recordingTransport(
      '{"event_id":"3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b","status":"PENDING"}',
    );
    const provider = createProvider({ type: 'mem0-platform-v3', apiKeyEnv: 'K', appId: 'app' }, CANARY, {
      transport,
    });
    await expect(provider.writer?.remember({ content: 'c', signal: signal() })).resolves.toEqual({
      status: 'accepted',
      providerOperationId: '3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b',
    });
    expect(sent.map((r) => [r.url, r.headers['authorization'], r.body])).toEqual([
      [
        'https://api.mem0.ai/v3/memories/add/',
        `Token ${CANARY}`,
        '{"messages":[{"role":"user","content":"c"}],"infer":false,"app_id":"app"}',
      ],
    ]);
  });

  it('legacy block: platformOrigin (tests only) replaces the fixed origin', async () => {
    const { transport, sent } = recordingTransport('{"results":[]}');
    const provider = createProvider({ type: 'mem0-platform-v3', apiKeyEnv: 'K', appId: 'app' }, CANARY, {
      transport,
      platformOrigin: 'http://127.0.0.1:4567',
    });
    await provider.search({ query: 'q', limit: 5, signal: signal() });
    expect(sent.map((r) => r.url)).toEqual(['http://127.0.0.1:4567/v3/memories/search/']);
  });

  it.each([
    ['', 'https://m.example.com/v2/memories/search'],
    ['/mem0', 'https://m.example.com/mem0/v2/memories/search'],
    ['/mem0/', 'https://m.example.com/mem0/v2/memories/search'],
    ['/a/b/', 'https://m.example.com/a/b/v2/memories/search'],
  ])('mem0 preset: basePath %j joins to %s', async (basePath, url) => {
    const { transport, sent } = recordingTransport('{"results":[]}');
    const provider = createProvider(
      {
        type: 'mem0',
        preset: 'mem0-v2',
        endpoint: { origin: 'https://m.example.com/', basePath },
        credentialEnv: 'K',
        scope: { userId: 'u' },
      },
      CANARY,
      { transport },
    );
    await provider.search({ query: 'q', limit: 5, signal: signal() });
    expect(sent.map((r) => r.url)).toEqual([url]);
  });

  const mem0 = (scope: Record<string, string>, preset = 'mem0-oss-rest-2026-08'): ProviderConfig =>
    ({
      type: 'mem0',
      preset,
      endpoint: { origin: 'https://m.example.com', basePath: '' },
      credentialEnv: 'K',
      scope,
    }) as ProviderConfig;

  it.each<[string, ProviderConfig, string]>([
    ['missing required userId', mem0({ agentId: 'g' }), 'scope-invalid'],
    ['unused appId on OSS', mem0({ userId: 'u', appId: 'a' }), 'scope-invalid'],
    ['unused userId on Platform V3', mem0({ appId: 'a', userId: 'u' }, 'mem0-v3'), 'scope-invalid'],
    ['missing appId on Platform V3', mem0({}, 'mem0-platform-v3'), 'scope-invalid'],
    [
      'insecure non-loopback origin',
      {
        ...mem0({ userId: 'u' }),
        endpoint: { origin: 'http://m.example.com', basePath: '' },
      } as ProviderConfig,
      'schema-invalid',
    ],
    [
      'traversal basePath',
      {
        ...mem0({ userId: 'u' }),
        endpoint: { origin: 'https://m.example.com', basePath: '/a/../b' },
      } as ProviderConfig,
      'schema-invalid',
    ],
    ['unknown preset', mem0({ userId: 'u' }, 'mem0-v9'), 'schema-invalid'],
    ['inherited key as preset', mem0({ userId: 'u' }, 'toString'), 'schema-invalid'],
    [
      'generic origin with a path',
      { type: 'generic-http-search-v1', baseUrl: 'https://c.example.com/x', tokenEnv: 'T' },
      'schema-invalid',
    ],
  ])('refuses %s (%s) before any request', (_label, config, code) => {
    const { transport, sent } = recordingTransport('{}');
    let thrown: unknown;
    try {
      createProvider(config, CANARY, { transport });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    expect((thrown as ConfigurationError).code).toBe(code);
    expect(sent).toEqual([]);
  });

  it('allows non-loopback http only with allowInsecureHttp', () => {
    const { transport } = recordingTransport('{}');
    const config = {
      ...mem0({ userId: 'u' }, 'aliyun-polardb-mysql-2026-08'),
      endpoint: { origin: 'http://10.0.0.5:8080', basePath: '', allowInsecureHttp: true },
    } as ProviderConfig;
    expect(createProvider(config, CANARY, { transport }).writer).toEqual({ remember: expect.any(Function) });
  });
});
