// The default transport on its own: TLS trust, header flattening, body streaming, cancellation.
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeTransport } from '../../../src/http/transport-node.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';

const certificate = createTestCertificate();
const handler: http.RequestListener = async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  res.setHeader('Set-Cookie', ['a=1', 'b=2']);
  res.setHeader('X-Echo-Length', String(Buffer.byteLength(body)));
  res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ got: body }));
};
let plain: http.Server;
let secure: https.Server;
let plainUrl: string;
let secureUrl: string;

beforeAll(async () => {
  plain = http.createServer(handler).listen(0, '127.0.0.1');
  secure = https
    .createServer({ key: certificate.key, cert: certificate.cert }, handler)
    .listen(0, '127.0.0.1');
  await Promise.all([once(plain, 'listening'), once(secure, 'listening')]);
  plainUrl = `http://127.0.0.1:${(plain.address() as net.AddressInfo).port}/p`;
  secureUrl = `https://127.0.0.1:${(secure.address() as net.AddressInfo).port}/p`;
});
afterAll(async () => {
  for (const server of [plain, secure]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const request = (url: string) => ({
  url,
  headers: { accept: 'application/json' },
  body: '{"query":"ü"}',
  signal: AbortSignal.timeout(5_000),
});

describe('node transport', () => {
  it('returns the status, lower-cased joined headers and the streamed body; sends UTF-8 with its byte length', async () => {
    const response = await createNodeTransport({ timeoutMs: 5_000 }).post(request(plainUrl));
    expect(response.status).toBe(201);
    expect(response.headers['set-cookie']).toBe('a=1, b=2');
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-echo-length']).toBe('14');
    expect(await text(response.body)).toBe('{"got":"{\\"query\\":\\"ü\\"}"}');
  });

  it('speaks HTTPS to a server whose certificate is trusted through `ca`', async () => {
    const response = await createNodeTransport({ timeoutMs: 5_000, ca: certificate.cert }).post(
      request(secureUrl),
    );
    expect(response.status).toBe(201);
    expect(await text(response.body)).toBe('{"got":"{\\"query\\":\\"ü\\"}"}');
  });

  it('refuses an untrusted certificate', async () => {
    await expect(createNodeTransport({ timeoutMs: 5_000 }).post(request(secureUrl))).rejects.toThrow();
  });

  it('refuses schemes other than http and https without connecting', async () => {
    await expect(
      createNodeTransport({ timeoutMs: 5_000 }).post(request('file:///etc/passwd')),
    ).rejects.toThrow('unsupported scheme');
  });

  it('makes cancel() fail the body iteration (never a silent short body) and tolerates repeated calls', async () => {
    const response = await createNodeTransport({ timeoutMs: 5_000 }).post(request(plainUrl));
    response.cancel();
    response.cancel();
    await expect(text(response.body)).rejects.toThrow();
  });
});
