// Every write-outcome row of docs/contracts.md, "Outcome mapping", against the loopback fakes: one scripted answer per row,
// exactly one request per write, failed vs unknown exactly.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../../src/config/schema.js';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { createProvider } from '../../../src/providers/factory.js';
import type { RememberResult } from '../../../src/providers/types.js';
import {
  DATAWORKS_ADD_ROUTE,
  OSS_ADD_ROUTE,
  PLATFORM_ADD_ROUTE,
  startDataworksBff,
  startMem0Oss,
  startMem0Platform,
} from '../../fixtures/fake-services/index.js';
import type { FakeService, ScriptedResponse } from '../../fixtures/fake-services/service.js';
import { refusedUrl } from '../../fixtures/fault-server.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';
const UUID = '3f2b8c1e-9a4d-4e7f-8b6a-1c2d3e4f5a6b';
const CONTENT = 'remember: the staging database is read-only on Fridays';

type Kind = 'platform' | 'oss' | 'dataworks';
let platform: FakeService;
let oss: FakeService;
let dataworks: FakeService;
beforeAll(async () => {
  platform = await startMem0Platform({ apiKey: CANARY });
  oss = await startMem0Oss({ apiKey: CANARY });
  dataworks = await startDataworksBff({ token: CANARY, forbiddenTokens: ['read-only-token'] });
});
afterAll(async () => {
  await platform.close();
  await oss.close();
  await dataworks.close();
});
beforeEach(() => {
  for (const fake of [platform, oss, dataworks]) {
    fake.unscript();
    fake.requests.length = 0;
  }
});

function writer(kind: Kind, origin: string, credential = CANARY) {
  const transport = createNodeTransport({ timeoutMs: 10_000 });
  const config: ProviderConfig =
    kind === 'platform'
      ? { type: 'mem0-platform-v3', apiKeyEnv: 'K', appId: 'app' }
      : kind === 'dataworks'
        ? { type: 'dataworks-bff-memory-v1', baseUrl: origin, tokenEnv: 'K' }
        : {
            type: 'mem0',
            preset: 'mem0-oss-rest-2026-08',
            endpoint: { origin, basePath: '' },
            credentialEnv: 'K',
            scope: { userId: 'u' },
          };
  return createProvider(config, credential, { transport, platformOrigin: origin }).writer!;
}

const fakeOf = (kind: Kind) => (kind === 'platform' ? platform : kind === 'dataworks' ? dataworks : oss);
const routeOf = (kind: Kind) =>
  kind === 'platform' ? PLATFORM_ADD_ROUTE : kind === 'dataworks' ? DATAWORKS_ADD_ROUTE : OSS_ADD_ROUTE;
const ok = (json: unknown): ScriptedResponse => ({ status: 200, json });
const raw = (body: string | Uint8Array): ScriptedResponse => ({ status: 200, raw: body });
const status = (code: number, headers: Record<string, string> = {}): ScriptedResponse => ({
  status: code,
  json: { detail: 'scripted' },
  headers,
});

type Row = [label: string, kind: Kind, answer: ScriptedResponse | 'documented', expected: RememberResult];

const ROWS: Row[] = [
  // async-status (Platform V3)
  [
    'documented PENDING add',
    'platform',
    'documented',
    { status: 'accepted', providerOperationId: expect.any(String) as string },
  ],
  [
    'PENDING + valid UUID',
    'platform',
    ok({ event_id: UUID, status: 'PENDING' }),
    { status: 'accepted', providerOperationId: UUID },
  ],
  [
    'PENDING + invalid UUID',
    'platform',
    ok({ event_id: 'evt_123', status: 'PENDING' }),
    { status: 'unknown' },
  ],
  ['PENDING + missing id', 'platform', ok({ status: 'PENDING' }), { status: 'unknown' }],
  [
    'SUCCEEDED + valid id',
    'platform',
    ok({ event_id: UUID, status: 'SUCCEEDED' }),
    { status: 'stored', providerOperationId: UUID },
  ],
  ['SUCCEEDED without id', 'platform', ok({ status: 'SUCCEEDED' }), { status: 'stored' }],
  ['SUCCEEDED + invalid id', 'platform', ok({ event_id: 'x', status: 'SUCCEEDED' }), { status: 'unknown' }],
  ['FAILED', 'platform', ok({ event_id: UUID, status: 'FAILED' }), { status: 'failed' }],
  ['other status', 'platform', ok({ event_id: UUID, status: 'QUEUED' }), { status: 'unknown' }],
  ['non-object (array)', 'platform', ok([{ event_id: UUID, status: 'PENDING' }]), { status: 'unknown' }],
  ['non-object (string)', 'platform', ok('PENDING'), { status: 'unknown' }],
  // results-id (OSS REST; PolarDB and mem0-v2 share the kind)
  [
    'documented ADD result',
    'oss',
    'documented',
    { status: 'stored', providerOperationId: expect.any(String) as string },
  ],
  [
    'results with an id',
    'oss',
    ok({ results: [{ id: 'mem-1', memory: CONTENT, event: 'ADD' }] }),
    {
      status: 'stored',
      providerOperationId: 'mem-1',
    },
  ],
  ['no results array', 'oss', ok({ id: 'mem-1' }), { status: 'unknown' }],
  ['empty results', 'oss', ok({ results: [] }), { status: 'unknown' }],
  [
    'first valid id among several',
    'oss',
    ok({ results: [{ id: ' ' }, { memory: 'x' }, { id: 'mem-2' }, { id: 'mem-3' }] }),
    {
      status: 'stored',
      providerOperationId: 'mem-2',
    },
  ],
  ['blank id', 'oss', ok({ results: [{ id: '\u00a0 ' }] }), { status: 'unknown' }],
  ['id with a C0 control', 'oss', ok({ results: [{ id: 'mem\u001b[31m' }] }), { status: 'unknown' }],
  ['257-code-point id', 'oss', ok({ results: [{ id: '😀'.repeat(257) }] }), { status: 'unknown' }],
  [
    '256-code-point id',
    'oss',
    ok({ results: [{ id: '😀'.repeat(256) }] }),
    { status: 'stored', providerOperationId: '😀'.repeat(256) },
  ],
  ['non-object (null)', 'oss', ok(null), { status: 'unknown' }],
  // envelope (DataWorks BFF): code 0/200 a synchronous store, another numeric code a rejection.
  [
    'documented add: code 0, the memory and its id',
    'dataworks',
    'documented',
    { status: 'stored', providerOperationId: expect.any(String) as string },
  ],
  [
    'code 0, data a list with an id',
    'dataworks',
    ok({ code: 0, data: [{ id: 'mem-1', memory: CONTENT }] }),
    { status: 'stored', providerOperationId: 'mem-1' },
  ],
  [
    'code 200, data {results} with a memory_id',
    'dataworks',
    ok({ code: 200, data: { results: [{ memory_id: 'mem-2' }] } }),
    { status: 'stored', providerOperationId: 'mem-2' },
  ],
  [
    'code 0, data the memory itself',
    'dataworks',
    ok({ code: 0, data: { memory_id: 'mem-3', memory: CONTENT } }),
    { status: 'stored', providerOperationId: 'mem-3' },
  ],
  ['code 0 without data', 'dataworks', ok({ code: 0, message: 'success' }), { status: 'stored' }],
  ['code 0, invalid id only', 'dataworks', ok({ code: 0, data: [{ id: 'x\u0007' }] }), { status: 'stored' }],
  ['code 1001 (invalid parameter)', 'dataworks', ok({ code: 1001, data: null }), { status: 'failed' }],
  ['code 403 in the envelope', 'dataworks', ok({ code: 403, data: null }), { status: 'failed' }],
  ['code as a string "0"', 'dataworks', ok({ code: '0', data: [] }), { status: 'unknown' }],
  ['no envelope (Mem0 results)', 'dataworks', ok({ results: [{ id: 'mem-1' }] }), { status: 'unknown' }],
  ['no envelope (null)', 'dataworks', ok(null), { status: 'unknown' }],
  // Thrown statuses and broken answers, for every kind.
  ...(['platform', 'oss', 'dataworks'] as const).flatMap((kind): Row[] => [
    [`HTTP 400`, kind, status(400), { status: 'failed' }],
    [`HTTP 401`, kind, status(401), { status: 'failed' }],
    [`HTTP 403`, kind, status(403), { status: 'failed' }],
    [`HTTP 404`, kind, status(404), { status: 'failed' }],
    [`HTTP 422`, kind, status(422), { status: 'unknown' }],
    [`HTTP 429 + Retry-After`, kind, status(429, { 'retry-after': '30' }), { status: 'unknown' }],
    [`HTTP 500`, kind, status(500), { status: 'unknown' }],
    [`HTTP 502`, kind, status(502), { status: 'unknown' }],
    [`HTTP 503`, kind, status(503), { status: 'unknown' }],
    [`HTTP 301 redirect`, kind, status(301, { location: '/landing' }), { status: 'unknown' }],
    [`HTTP 307 redirect`, kind, status(307, { location: '/landing' }), { status: 'unknown' }],
    [`oversize body`, kind, raw(`{"results":[],"pad":"${'x'.repeat(1024 * 1024)}"}`), { status: 'unknown' }],
    [
      `bad UTF-8`,
      kind,
      raw(new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d])),
      { status: 'unknown' },
    ],
    [`bad JSON`, kind, raw('{"status":"PENDING",'), { status: 'unknown' }],
    [`empty body`, kind, raw(''), { status: 'unknown' }],
  ]),
];

describe('write outcomes', () => {
  it.each(ROWS)('%s (%s) → %j, after exactly one request', async (_label, kind, answer, expected) => {
    const fake = fakeOf(kind);
    if (answer !== 'documented') fake.script(routeOf(kind), answer);
    const result = await writer(kind, fake.url).remember({
      content: CONTENT,
      signal: AbortSignal.timeout(10_000),
    });
    expect(result).toEqual(expected);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([routeOf(kind)]);
  });

  it('the BFF refuses a token without memory rights in its envelope (HTTP 200, code 403) → failed', async () => {
    const result = await writer('dataworks', dataworks.url, 'read-only-token').remember({
      content: CONTENT,
      signal: AbortSignal.timeout(5_000),
    });
    expect(result).toEqual({ status: 'failed' });
    expect(dataworks.requests.map((r) => r.path)).toEqual(['/dmai/mem0MemoriesAdd']);
  });

  it.each<Kind>(['platform', 'oss', 'dataworks'])('timeout → unknown (%s), one request', async (kind) => {
    const fake = fakeOf(kind);
    fake.script(routeOf(kind), { hang: true });
    const result = await writer(kind, fake.url).remember({
      content: CONTENT,
      signal: AbortSignal.timeout(200),
    });
    expect(result).toEqual({ status: 'unknown' });
    expect(fake.requests).toHaveLength(1);
  });

  it.each<Kind>(['platform', 'oss', 'dataworks'])(
    'user abort mid-request → unknown (%s), one request',
    async (kind) => {
      const fake = fakeOf(kind);
      fake.script(routeOf(kind), { delayMs: 5_000, json: { event_id: UUID, status: 'PENDING' } });
      const controller = new AbortController();
      const pending = writer(kind, fake.url).remember({ content: CONTENT, signal: controller.signal });
      setTimeout(() => controller.abort(), 100);
      expect(await pending).toEqual({ status: 'unknown' });
      expect(fake.requests).toHaveLength(1);
    },
  );

  it.each<Kind>(['platform', 'oss', 'dataworks'])('connection refused → unknown (%s)', async (kind) => {
    const result = await writer(kind, await refusedUrl()).remember({
      content: CONTENT,
      signal: AbortSignal.timeout(5_000),
    });
    expect(result).toEqual({ status: 'unknown' });
  });

  it('a PENDING answer is never reported as stored', async () => {
    platform.script(
      PLATFORM_ADD_ROUTE,
      ok({ event_id: UUID, status: 'PENDING', results: [{ id: 'mem-1' }] }),
    );
    const result = await writer('platform', platform.url).remember({
      content: CONTENT,
      signal: AbortSignal.timeout(5_000),
    });
    expect(result.status).toBe('accepted');
  });

  it('the content goes out byte for byte (no trim, no normalisation)', async () => {
    const content = '  e\u0301 vs \u00e9\tline\r\n😀  ';
    await writer('oss', oss.url).remember({ content, signal: AbortSignal.timeout(5_000) });
    const body = oss.requests[0]!.body as { messages: { content: string }[] };
    expect(body.messages[0]!.content).toBe(content);
  });
});
