// Default transport: HTTP/1.1 spoken directly over node:net / node:tls. No undici (a first `fetch`
// costs ~35 ms of start-up) and no node:http either: its agent and parser machinery cost more than
// the one request a hook makes. One connection per request (`connection: close`), always destroyed.
import type net from 'node:net';
import type tls from 'node:tls';
import { type ParserEvent, ResponseParser } from './http1-response.js';
import type { Transport, TransportOptions, TransportRequest, TransportResponse } from './transport.js';

export interface NodeTransportOptions extends TransportOptions {
  /** Extra trust anchors (PEM) for HTTPS, e.g. a private CA or a test certificate. */
  ca?: string;
}

/** Pauses the socket when this much decoded body waits unread: a flood never piles up in memory. */
const HIGH_WATER = 256 * 1024;
const FORBIDDEN_IN_HEADERS = /[\r\n\0]/;

export function createNodeTransport(options: NodeTransportOptions): Transport {
  return { post: (request) => post(request, options) };
}

async function post(request: TransportRequest, options: NodeTransportOptions): Promise<TransportResponse> {
  const { signal } = request;
  if (signal.aborted) throw new Error('aborted before sending');
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('unsupported scheme');
  const head = requestHead(url, request.headers, Buffer.byteLength(request.body, 'utf8'));
  // Loaded per scheme: a plain-HTTP request never pays for TLS.
  const socket = url.protocol === 'https:' ? await connectTls(url, options) : await connectPlain(url);
  return exchange(socket, head, request.body, signal, options.timeoutMs);
}

/** Request line and headers; a CR, LF or NUL in any of them is refused rather than sent. */
function requestHead(url: URL, headers: Readonly<Record<string, string>>, length: number): string {
  const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (FORBIDDEN_IN_HEADERS.test(name) || FORBIDDEN_IN_HEADERS.test(value)) {
      throw new Error('invalid header character');
    }
    lines.push(`${name}: ${value}`);
  }
  lines.push(`content-length: ${length}`, 'connection: close', '', '');
  return lines.join('\r\n');
}

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

async function connectPlain(url: URL): Promise<net.Socket> {
  const net = await import('node:net');
  return net.connect({ host: hostOf(url), port: Number(url.port || 80) });
}

async function connectTls(url: URL, options: NodeTransportOptions): Promise<tls.TLSSocket> {
  const [net, tls] = await Promise.all([import('node:net'), import('node:tls')]);
  const host = hostOf(url);
  return tls.connect({
    host,
    port: Number(url.port || 443),
    // SNI only for names: Node warns on stderr when given an IP address.
    ...(net.isIP(host) === 0 ? { servername: host } : {}),
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ALPNProtocols: ['http/1.1'],
  });
}

function exchange(
  socket: net.Socket,
  head: string,
  body: string,
  signal: AbortSignal,
  idleMs: number,
): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const parser = new ResponseParser();
    const queue: Uint8Array[] = [];
    let queued = 0;
    let ended = false;
    let failure: Error | undefined;
    let headed = false;
    let wake: (() => void) | undefined;

    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const fail = (error: Error) => {
      if (failure !== undefined || ended) return;
      failure = error;
      socket.destroy();
      if (!headed) reject(error);
      notify();
    };
    const onAbort = () => fail(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (!ended) fail(new Error('connection closed'));
    });
    socket.on('error', (error) => fail(error));
    // Idle backstop for connect, headers and body when the caller's signal never fires.
    socket.setTimeout(idleMs, () => fail(new Error('idle timeout')));

    const handle = (events: ParserEvent[]) => {
      for (const event of events) {
        if (event.type === 'head') {
          headed = true;
          resolve({ status: event.status, headers: event.headers, body: iterate(), cancel });
        } else if (event.type === 'data') {
          if (event.chunk.byteLength === 0) continue;
          queue.push(event.chunk);
          queued += event.chunk.byteLength;
          if (queued > HIGH_WATER) socket.pause();
        } else {
          ended = true;
          socket.destroy();
        }
      }
      notify();
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        handle(parser.push(chunk));
      } catch (error) {
        fail(error as Error);
      }
    });
    socket.on('end', () => {
      try {
        handle(parser.finish());
      } catch (error) {
        fail(error as Error);
      }
    });

    // After cancel() every read throws, even when the whole body had already arrived: a caller that
    // gave up on a response must never mistake what is left for a complete body.
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      queue.length = 0;
      socket.destroy();
      notify();
    };
    async function* iterate(): AsyncGenerator<Uint8Array> {
      for (;;) {
        if (cancelled) throw new Error('cancelled');
        const chunk = queue.shift();
        if (chunk !== undefined) {
          queued -= chunk.byteLength;
          if (queued <= HIGH_WATER && socket.isPaused()) socket.resume();
          yield chunk;
          continue;
        }
        if (ended) return;
        if (failure !== undefined) throw failure;
        await new Promise<void>((r) => {
          wake = r;
        });
      }
    }

    socket.setNoDelay(true);
    socket.write(head);
    socket.write(body, 'utf8');
  });
}
