// postJson over the default node:http transport, against a real misbehaving loopback server.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, requestHeaders } from '../../../src/http/client.js';
import { ProviderRequestError } from '../../../src/http/request-error.js';
import type { Transport } from '../../../src/http/transport.js';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { abortWhen } from '../../fixtures/abort-when.js';
import { type Fault, type FaultServer, refusedUrl, startFaultServer } from '../../fixtures/fault-server.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';
const credential = { name: 'authorization', value: `Bearer ${CANARY}` };

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

/** Wraps a real transport to count `cancel()` calls (the reader was released). */
function countingCancels(inner: Transport): { transport: Transport; cancels: () => number } {
  let cancels = 0;
  return {
    cancels: () => cancels,
    transport: {
      async post(request) {
        const response = await inner.post(request);
        return {
          ...response,
          cancel: () => {
            cancels++;
            response.cancel();
          },
        };
      },
    },
  };
}

function send(url: string, signal: AbortSignal = AbortSignal.timeout(10_000), transport?: Transport) {
  return postJson(transport ?? createNodeTransport({ timeoutMs: 10_000 }), {
    url,
    credential,
    body: { query: 'q', limit: 5 },
    signal,
  });
}

/** The rejection, checked to be our error and to leak neither the credential nor the URL. */
async function rejection(promise: Promise<unknown>): Promise<ProviderRequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderRequestError);
  const text = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`;
  expect(text).not.toContain(CANARY);
  expect(text).not.toContain('127.0.0.1');
  return error as ProviderRequestError;
}

describe('postJson request on the wire', () => {
  it('sends POST, accept/content-type JSON, exactly one credential header and the JSON.stringify body', async () => {
    await expect(send(server.urlFor('ok'))).resolves.toEqual({ items: [] });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.body).toBe('{"query":"q","limit":5}');
    expect(request!.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${CANARY}`,
      'content-length': '23',
      host: server.url.slice('http://'.length),
      connection: 'close',
    });
  });

  it('builds headers with exactly one credential header', () => {
    expect(requestHeaders({ name: 'x-api-key', value: CANARY })).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      'x-api-key': CANARY,
    });
  });

  it('returns any JSON root, e.g. an array (shape checks belong to the providers)', async () => {
    await expect(send(server.urlFor('json-array'))).resolves.toEqual([]);
  });
});

describe('postJson failures', () => {
  it.each<[Fault, ProviderRequestError['kind'], number | undefined]>([
    ['redirect-301', 'invalid-response', undefined],
    ['redirect-302', 'invalid-response', undefined],
    ['redirect-307', 'invalid-response', undefined],
    ['oversize-declared', 'invalid-response', undefined],
    ['oversize-streamed', 'invalid-response', undefined],
    ['endless-chunked', 'invalid-response', undefined],
    ['invalid-utf8', 'invalid-response', undefined],
    ['invalid-json', 'invalid-response', undefined],
    ['empty', 'invalid-response', undefined],
    ['status-401', 'http-status', 401],
    ['status-403', 'http-status', 403],
    ['status-404', 'http-status', 404],
    ['status-429', 'http-status', 429],
    ['status-500', 'http-status', 500],
    ['status-502', 'http-status', 502],
    ['status-503', 'http-status', 503],
    ['status-504', 'http-status', 504],
    ['reset-before-headers', 'incomplete', undefined],
    ['reset-mid-headers', 'incomplete', undefined],
    ['reset-mid-body', 'incomplete', undefined],
    ['wrong-content-length', 'incomplete', undefined],
  ])('%s → %s (status %s), after exactly one request', async (fault, kind, status) => {
    const error = await rejection(send(server.urlFor(fault)));
    expect({ kind: error.kind, status: error.status }).toEqual({ kind, status });
    expect(server.requests.map((r) => r.path)).toEqual([`/fault/${fault}`]);
  });

  it.each<Fault>(['redirect-301', 'redirect-302', 'redirect-307'])(
    'never follows %s: the Location target gets no request and the body is cancelled',
    async (fault) => {
      const spy = countingCancels(createNodeTransport({ timeoutMs: 10_000 }));
      await rejection(send(server.urlFor(fault), undefined, spy.transport));
      expect(spy.cancels()).toBeGreaterThanOrEqual(1);
      expect(server.requests.some((r) => r.path === '/landing')).toBe(false);
    },
  );

  it.each<Fault>(['oversize-declared', 'oversize-streamed', 'endless-chunked'])(
    'cancels the reader once %s passes 1 MiB',
    async (fault) => {
      const spy = countingCancels(createNodeTransport({ timeoutMs: 10_000 }));
      expect((await rejection(send(server.urlFor(fault), undefined, spy.transport))).kind).toBe(
        'invalid-response',
      );
      expect(spy.cancels()).toBeGreaterThanOrEqual(1);
    },
  );

  it('reports a refused connection as incomplete', async () => {
    expect((await rejection(send(`${await refusedUrl()}/x`))).kind).toBe('incomplete');
  });

  it.each<Fault>(['never-answer', 'headers-then-silence', 'drip'])(
    'bounds %s by the caller signal (incomplete; the transport backstop outlasts the test)',
    async (fault) => {
      // The signal fires once the server holds the request; with a 60 s backstop, settling at all
      // (within the test timeout) shows the signal ended it.
      const before = server.requests.length;
      const held = abortWhen(() => server.requests.length > before);
      const transport = createNodeTransport({ timeoutMs: 60_000 });
      expect((await rejection(send(server.urlFor(fault), held, transport))).kind).toBe('incomplete');
      expect(server.requests.slice(before).map((r) => r.path)).toEqual([`/fault/${fault}`]);
    },
  );

  it('bounds a silent server by the transport idle timeout even when the signal never fires', async () => {
    const transport = createNodeTransport({ timeoutMs: 300 });
    const error = await rejection(
      send(server.urlFor('never-answer'), new AbortController().signal, transport),
    );
    expect(error.kind).toBe('incomplete');
  });

  it('reports an abort mid-wait as incomplete', async () => {
    const controller = new AbortController();
    const pending = send(server.urlFor('never-answer'), controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(pending)).kind).toBe('incomplete');
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await rejection(send(server.urlFor('ok'), controller.signal))).kind).toBe('incomplete');
    await send(server.urlFor('ok'));
    expect(server.requests.map((r) => r.path)).toEqual(['/fault/ok']);
  });

  it('refuses a credential that would split headers, without echoing it', async () => {
    const error = await rejection(
      postJson(createNodeTransport({ timeoutMs: 5_000 }), {
        url: server.urlFor('ok'),
        credential: { name: 'authorization', value: `Bearer ${CANARY}\r\nx-injected: 1` },
        body: {},
        signal: AbortSignal.timeout(5_000),
      }),
    );
    expect(error.kind).toBe('incomplete');
    expect(server.requests).toEqual([]);
  });

  it('uses fixed messages', () => {
    expect([
      new ProviderRequestError('invalid-response').message,
      new ProviderRequestError('http-status', 503).message,
      new ProviderRequestError('incomplete').message,
    ]).toEqual([
      'The provider response is invalid.',
      'The provider answered with HTTP status 503.',
      'The provider request did not complete.',
    ]);
  });
});
