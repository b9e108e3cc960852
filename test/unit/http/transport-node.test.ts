// The default transport on its own: TLS trust, header flattening, body streaming, cancellation,
// resets, floods, the idle timeout and aborts, over node:net and node:tls.
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, listenOnLoopback } from '../../../scripts/shared/loopback.js';
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
let plain6: http.Server;
let secure: https.Server;
let plainUrl: string;
let plain6Url: string;
let secureUrl: string;

beforeAll(async () => {
  plain = http.createServer(handler).listen(0, '127.0.0.1');
  plain6 = http.createServer(handler).listen(0, '::1');
  secure = https
    .createServer({ key: certificate.key, cert: certificate.cert }, handler)
    .listen(0, '127.0.0.1');
  await Promise.all([once(plain, 'listening'), once(plain6, 'listening'), once(secure, 'listening')]);
  plainUrl = `http://127.0.0.1:${(plain.address() as net.AddressInfo).port}/p`;
  plain6Url = `http://[::1]:${(plain6.address() as net.AddressInfo).port}/p`;
  secureUrl = `https://127.0.0.1:${(secure.address() as net.AddressInfo).port}/p`;
});
afterAll(async () => {
  for (const server of [plain, plain6, secure]) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** Raw servers made by a test, closed (with their connections) after it. */
const raws: Loopback[] = [];
afterEach(async () => {
  await Promise.all(raws.splice(0).map((server) => server.close()));
});
/**
 * A raw HTTP server on 127.0.0.1 that plays `respond` once a request head is in, and records each
 * connection with a promise of its close.
 */
async function rawServer(respond: (socket: net.Socket) => void) {
  const connections: Promise<void>[] = [];
  const server = await listenOnLoopback(
    net.createServer((socket) => {
      connections.push(new Promise((resolve) => socket.on('close', () => resolve())));
      socket.on('error', () => {});
      let seen = '';
      const onData = (chunk: Buffer) => {
        seen += chunk.toString('latin1');
        if (!seen.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        respond(socket);
      };
      socket.on('data', onData);
    }),
  );
  raws.push(server);
  return { url: `${server.url}/raw`, connections };
}

async function bytes(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
const text = async (body: AsyncIterable<Uint8Array>) => (await bytes(body)).toString('utf8');

const request = (url: string, signal: AbortSignal = AbortSignal.timeout(5_000)) => ({
  url,
  headers: { accept: 'application/json' },
  body: '{"query":"ü"}',
  signal,
});

describe('node transport', () => {
  const transport = (timeoutMs = 5_000, ca?: string) =>
    createNodeTransport({ timeoutMs, ...(ca === undefined ? {} : { ca }) });

  it.each([
    ['IPv4', () => plainUrl],
    ['IPv6', () => plain6Url],
    // A name goes through Node's resolver (/etc/hosts maps localhost to 127.0.0.1 here).
    ['a host name', () => plainUrl.replace('127.0.0.1', 'localhost')],
  ])(
    'returns the status, lower-cased joined headers and the streamed body; sends UTF-8 with its byte length (%s)',
    async (_family, url) => {
      const response = await transport().post(request(url()));
      expect(response.status).toBe(201);
      expect(response.headers['set-cookie']).toBe('a=1, b=2');
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['x-echo-length']).toBe('14');
      expect(await text(response.body)).toBe('{"got":"{\\"query\\":\\"ü\\"}"}');
    },
  );

  it('speaks HTTPS (always node:tls) to a server whose certificate is trusted through `ca`', async () => {
    const response = await transport(5_000, certificate.cert).post(request(secureUrl));
    expect(response.status).toBe(201);
    expect(await text(response.body)).toBe('{"got":"{\\"query\\":\\"ü\\"}"}');
  });

  it('refuses an untrusted certificate', async () => {
    await expect(transport().post(request(secureUrl))).rejects.toThrow();
  });

  it('refuses schemes other than http and https without connecting', async () => {
    await expect(transport().post(request('file:///etc/passwd'))).rejects.toThrow('unsupported scheme');
  });

  it('makes cancel() fail the body iteration (never a silent short body) and tolerates repeated calls', async () => {
    const response = await transport().post(request(plainUrl));
    response.cancel();
    response.cancel();
    await expect(text(response.body)).rejects.toThrow();
  });

  it('makes the body iteration throw when the server resets mid-body', async () => {
    const server = await rawServer((socket) => {
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"items":[',
      );
      // Late enough for the head to have been parsed: the reset then lands in the body.
      setTimeout(() => socket.resetAndDestroy(), 200);
    });
    const response = await transport().post(request(server.url));
    expect(response.status).toBe(200);
    await expect(text(response.body)).rejects.toThrow();
  });

  it('makes the body iteration throw when the server closes before the declared length', async () => {
    const server = await rawServer((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"items":[');
    });
    const response = await transport().post(request(server.url));
    await expect(text(response.body)).rejects.toThrow(
      'the connection ended before the response was complete',
    );
  });

  it('delivers every byte of a 4 MiB flood, in order, to a reader that starts late and reads slowly', async () => {
    // A byte pattern with a period (251) prime to every chunk size: a lost, repeated or reordered
    // chunk changes the bytes.
    const body = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`);
      socket.end(body);
    });
    const response = await transport().post(request(server.url));
    // Not reading yet: the transport must stop reading the wire instead of buffering 4 MiB.
    await sleep(300);
    const chunks: Uint8Array[] = [];
    let n = 0;
    for await (const chunk of response.body) {
      chunks.push(Buffer.from(chunk));
      // A slow consumer: every few chunks, a pause long enough for the wire to be paused and resumed.
      if (++n % 8 === 0) await sleep(5);
    }
    const got = Buffer.concat(chunks);
    expect({ length: got.length, same: got.equals(body) }).toEqual({ length: body.length, same: true });
  });

  it('is not an idle server when the reader is slow: a 1 MiB body read after 2 × timeoutMs completes', async () => {
    const body = Buffer.alloc(1024 * 1024, 0x61);
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`);
      socket.end(body);
    });
    const response = await transport(200).post(request(server.url, AbortSignal.timeout(10_000)));
    // Past the high-water mark the wire is paused: no chunk arrives to restart the idle timer.
    await sleep(400);
    expect((await text(response.body)).length).toBe(body.length);
  });

  it('rejects with the idle timeout when the server never answers, and closes the connection', async () => {
    const server = await rawServer(() => {});
    const started = Date.now();
    await expect(transport(200).post(request(server.url, AbortSignal.timeout(10_000)))).rejects.toThrow(
      'idle timeout',
    );
    const elapsed = Date.now() - started;
    await Promise.all(server.connections);
    // Not before the idle timeout, and well before the caller's 10 s signal could have ended it.
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(8_000);
  });

  it('makes the body iteration throw with the idle timeout when the body stalls after the head', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 64\r\n\r\n{');
    });
    const response = await transport(200).post(request(server.url, AbortSignal.timeout(10_000)));
    await expect(text(response.body)).rejects.toThrow('idle timeout');
  });

  it('restarts the idle timeout on every chunk: a body dripping for longer than timeoutMs completes', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\n');
      let sent = 0;
      // 8 bytes 100 ms apart: 800 ms in all, never 200 ms without a byte.
      const timer = setInterval(() => {
        socket.write(String(sent));
        if (++sent === 8) clearInterval(timer);
      }, 100);
      socket.on('close', () => clearInterval(timer));
    });
    const response = await transport(200).post(request(server.url, AbortSignal.timeout(10_000)));
    expect(await text(response.body)).toBe('01234567');
  });

  const abortedController = () => {
    const controller = new AbortController();
    controller.abort();
    return controller.signal;
  };
  const firedTimeout = async () => {
    const signal = AbortSignal.timeout(1);
    await sleep(20);
    return signal;
  };
  it.each<[string, () => AbortSignal | Promise<AbortSignal>]>([
    ['an AbortController signal', abortedController],
    ['an AbortSignal.timeout', firedTimeout],
  ])('rejects without connecting when %s is already aborted', async (_kind, signal) => {
    const server = await rawServer(() => {});
    await expect(transport().post(request(server.url, await signal()))).rejects.toThrow(
      'aborted before sending',
    );
    expect(server.connections).toEqual([]);
  });

  it.each<[string, () => AbortSignal]>([
    [
      'an AbortController signal',
      () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 150);
        return controller.signal;
      },
    ],
    ['AbortSignal.timeout', () => AbortSignal.timeout(150)],
  ])(
    'rejects with no response, and closes the connection, when %s aborts the wait',
    async (_kind, signal) => {
      const server = await rawServer(() => {});
      await expect(transport().post(request(server.url, signal()))).rejects.toThrow('aborted');
      // The connection was made and is released, not left to the server.
      expect(server.connections).toHaveLength(1);
      await Promise.all(server.connections);
    },
  );

  it.each<[string, () => AbortSignal]>([
    [
      'an AbortController signal',
      () => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 150);
        return controller.signal;
      },
    ],
    ['AbortSignal.timeout', () => AbortSignal.timeout(150)],
  ])('makes the body iteration throw when %s aborts after the head', async (_kind, signal) => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 64\r\n\r\n{');
    });
    const response = await transport().post(request(server.url, signal()));
    await expect(text(response.body)).rejects.toThrow('aborted');
  });
});
