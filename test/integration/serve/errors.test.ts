import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextServer } from '../../../src/serve/server.js';
import { errorResponse, makeFolder, removeFolder, SEARCH, start, TOKEN } from './harness.js';

// Every request below carries this text in its query, so a response echoing it is caught.
const MARKER = 'canary-deploy-marker-4c1e';
const good = { query: `${MARKER} deployment`, limit: 5 };
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

interface Case {
  method?: string;
  path?: string;
  /** Replaces the default headers (bearer token + JSON content type). */
  headers?: Record<string, string>;
  body?: Uint8Array | ReadableStream<Uint8Array>;
}

const defaults = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const bodyless = ['GET', 'HEAD'];

function request(server: ContextServer, c: Case): Promise<Response> {
  const method = c.method ?? 'POST';
  const init: RequestInit & { duplex?: 'half' } = { method, headers: c.headers ?? defaults };
  if (!bodyless.includes(method)) init.body = c.body ?? json(good);
  if (c.body instanceof ReadableStream) init.duplex = 'half';
  return fetch(`${server.url}${c.path ?? SEARCH}`, init);
}

function streamOf(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const piece = new TextEncoder().encode(`${MARKER} `.repeat(1024)).slice(0, bytes - sent);
      sent += piece.length;
      controller.enqueue(piece);
    },
  });
}

describe('error responses', () => {
  let dir: string;
  let server: ContextServer;
  beforeAll(async () => {
    dir = await makeFolder({ 'deploy.md': '# Deployment\n\nShip small changes often.\n' });
    server = await start({ dir });
  });
  afterAll(async () => {
    await server.close();
    await removeFolder(dir);
  });

  it.each<[string, Case, number, string]>([
    ['an unknown path', { path: '/v1/context/other' }, 404, 'not_found'],
    ['a trailing slash', { path: `${SEARCH}/` }, 404, 'not_found'],
    ['the root path', { method: 'GET', path: '/' }, 404, 'not_found'],
    ['a host-like double slash', { path: `//evil${SEARCH}` }, 404, 'not_found'],
    ['an encoded path', { path: '/v1/context/%73earch' }, 404, 'not_found'],
    ['an unknown path without a token', { path: '/admin', headers: {} }, 404, 'not_found'],
    ['GET', { method: 'GET' }, 405, 'method_not_allowed'],
    ['PUT', { method: 'PUT' }, 405, 'method_not_allowed'],
    ['DELETE', { method: 'DELETE' }, 405, 'method_not_allowed'],
    ['no authorization header', { headers: { 'content-type': 'application/json' } }, 401, 'unauthorized'],
    ['the Basic scheme', { headers: { ...defaults, authorization: `Basic ${TOKEN}` } }, 401, 'unauthorized'],
    ['a bare token', { headers: { ...defaults, authorization: TOKEN } }, 401, 'unauthorized'],
    ['a wrong token', { headers: { ...defaults, authorization: 'Bearer wrong-token' } }, 401, 'unauthorized'],
    [
      'a token prefix',
      { headers: { ...defaults, authorization: `Bearer ${TOKEN.slice(0, -1)}` } },
      401,
      'unauthorized',
    ],
    [
      'a wrong token with an invalid body (auth is checked first)',
      { headers: { ...defaults, authorization: 'Bearer wrong' }, body: json({ query: '', limit: 0 }) },
      401,
      'unauthorized',
    ],
    [
      'no content type',
      { headers: { authorization: defaults.authorization } },
      415,
      'unsupported_media_type',
    ],
    ['text/plain', { headers: { ...defaults, 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
    [
      'a non-UTF-8 charset',
      { headers: { ...defaults, 'content-type': 'application/json; charset=latin1' } },
      415,
      'unsupported_media_type',
    ],
    [
      'a body one byte over 64 KiB',
      { body: new Uint8Array(64 * 1024 + 1).fill(0x20) },
      413,
      'payload_too_large',
    ],
    ['a 10 MiB body', { body: new Uint8Array(10 * 1024 * 1024).fill(0x20) }, 413, 'payload_too_large'],
    ['a chunked body over 64 KiB', { body: streamOf(200 * 1024) }, 413, 'payload_too_large'],
    ['an empty body', { body: new Uint8Array(0) }, 400, 'invalid_json'],
    ['malformed JSON', { body: new TextEncoder().encode(`{"query":"${MARKER}",`) }, 400, 'invalid_json'],
    ['invalid UTF-8', { body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) }, 400, 'invalid_json'],
    ['a JSON array', { body: json([good]) }, 400, 'invalid_request'],
    ['an extra field', { body: json({ ...good, repository: 'other' }) }, 400, 'invalid_request'],
    ['a missing query', { body: json({ limit: 5 }) }, 400, 'invalid_query'],
    ['a non-string query', { body: json({ query: [MARKER], limit: 5 }) }, 400, 'invalid_query'],
    ['an empty query', { body: json({ query: '', limit: 5 }) }, 422, 'invalid_query'],
    ['a whitespace-only query', { body: json({ query: ' \n ', limit: 5 }) }, 422, 'invalid_query'],
    [
      'a query over 4096 characters',
      { body: json({ query: MARKER.repeat(200), limit: 5 }) },
      422,
      'invalid_query',
    ],
    ['a missing limit', { body: json({ query: MARKER }) }, 400, 'invalid_limit'],
    ['limit "5"', { body: json({ query: MARKER, limit: '5' }) }, 400, 'invalid_limit'],
    ['limit 0', { body: json({ query: MARKER, limit: 0 }) }, 422, 'invalid_limit'],
    ['limit 6', { body: json({ query: MARKER, limit: 6 }) }, 422, 'invalid_limit'],
    ['limit 5.5', { body: json({ query: MARKER, limit: 5.5 }) }, 422, 'invalid_limit'],
  ])('answers %s with a JSON error that does not echo the query', async (_name, c, status, code) => {
    const response = await request(server, c);
    const text = await response.text();
    const body = errorResponse.parse(JSON.parse(text));
    expect({
      status: response.status,
      code: body.error.code,
      type: response.headers.get('content-type'),
      echoes: text.includes(MARKER) || text.includes(TOKEN),
    }).toEqual({ status, code, type: 'application/json; charset=utf-8', echoes: false });
  });

  it.each([
    ['GET', { method: 'GET' }, 'allow', 'POST'],
    ['PUT', { method: 'PUT' }, 'allow', 'POST'],
    ['no token', { headers: { 'content-type': 'application/json' } }, 'www-authenticate', 'Bearer'],
    [
      'a wrong token',
      { headers: { ...defaults, authorization: 'Bearer nope' } },
      'www-authenticate',
      'Bearer error="invalid_token"',
    ],
  ])('answers %s with the right %s header', async (_name, c: Case, header, value) => {
    const response = await request(server, c);
    await response.body?.cancel();
    expect(response.headers.get(header)).toBe(value);
  });

  it('answers HEAD with 405 and no body', async () => {
    const response = await request(server, { method: 'HEAD' });
    expect([response.status, response.headers.get('allow'), await response.text()]).toEqual([
      405,
      'POST',
      '',
    ]);
  });

  it('still serves the right token after all of the above', async () => {
    const response = await request(server, {});
    expect(response.status).toBe(200);
  });

  it('ignores a query string on the search path', async () => {
    const response = await request(server, { path: `${SEARCH}?debug=1` });
    expect(response.status).toBe(200);
  });

  it('accepts a body of exactly 64 KiB', async () => {
    const padded = JSON.stringify(good).padEnd(64 * 1024, ' ');
    const response = await request(server, { body: new TextEncoder().encode(padded) });
    expect(response.status).toBe(200);
  });
});

describe('internal errors', () => {
  it('answers 500 with a fixed message when the folder disappears, without paths or errno', async () => {
    const dir = await makeFolder({ 'a.md': '# A\n\nalpha\n' });
    const server = await start({ dir, rescanIntervalMs: 0 });
    await removeFolder(dir);
    const response = await request(server, {});
    const text = await response.text();
    await server.close();
    expect([response.status, JSON.parse(text)]).toEqual([
      500,
      { error: { code: 'internal', message: 'The search could not be completed.' } },
    ]);
  });
});
