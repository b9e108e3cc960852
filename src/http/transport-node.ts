// Default transport: HTTP/1.1 spoken directly, with no undici (a first `fetch` costs ~35 ms of
// start-up) and no node:http (its agent and parser machinery cost more than the one request a hook
// makes). One connection per request (`connection: close`), always destroyed, over node:net (http)
// or node:tls (https): public APIs only, with Node's own resolver and address-family fallback.
import { type ParserEvent, ResponseParser } from './http1-response.js';
import { processLookup } from './single-flight-lookup.js';
import type { Transport, TransportOptions, TransportRequest, TransportResponse } from './transport.js';
import type { Dial, Wire } from './wire.js';
import { netDial } from './wire-net.js';

export interface NodeTransportOptions extends TransportOptions {
  /** Extra trust anchors (PEM) for HTTPS, e.g. a private CA or a test certificate. */
  ca?: string;
}

/** Pauses reading when this much decoded body waits unread: a flood never piles up in memory. */
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
  const text = requestHead(url, request.headers, Buffer.byteLength(request.body, 'utf8')) + request.body;
  // Loaded per scheme: a plain-HTTP request never pays for TLS.
  const dial = url.protocol === 'https:' ? tlsDial(url, options) : plainDial(url);
  return exchange(dial, text, signal, options.timeoutMs);
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

/** URL keeps an IPv6 literal in brackets; net and tls want the bare address. */
const unbracketed = (hostname: string) =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;

// The built-ins themselves, not bundled `import()`s: those copy every export of the module first
// (about 1 M instructions per search for node:net and the code cache's node:vm, docs/performance.md).
function plainDial(url: URL): Dial {
  const net = process.getBuiltinModule('node:net');
  return netDial(() =>
    net.connect({ host: unbracketed(url.hostname), port: Number(url.port || 80), lookup: processLookup() }),
  );
}

function tlsDial(url: URL, options: NodeTransportOptions): Dial {
  const net = process.getBuiltinModule('node:net');
  const tls = process.getBuiltinModule('node:tls');
  const host = unbracketed(url.hostname);
  return netDial(() =>
    tls.connect({
      host,
      port: Number(url.port || 443),
      // One lookup per host name at a time: a resolver that never answers must not take a thread per search.
      lookup: processLookup(),
      // SNI only for names: Node warns on stderr when given an IP address.
      ...(net.isIP(host) === 0 ? { servername: host } : {}),
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      ALPNProtocols: ['http/1.1'],
    }),
  );
}

function exchange(dial: Dial, text: string, signal: AbortSignal, idleMs: number): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const parser = new ResponseParser();
    const queue: Uint8Array[] = [];
    let queued = 0;
    let paused = false;
    let ended = false;
    let failure: Error | undefined;
    let headed = false;
    let wake: (() => void) | undefined;

    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    // Whatever ends the exchange releases everything: connection, timer, abort listener.
    const release = () => {
      clearTimeout(idle);
      signal.removeEventListener('abort', onAbort);
      wire.destroy();
    };
    const fail = (error: Error) => {
      if (failure !== undefined || ended) return;
      failure = error;
      release();
      if (!headed) reject(error);
      notify();
    };
    const onAbort = () => fail(new Error('aborted'));
    // Idle backstop for connect, headers and body when the caller's signal never fires; every chunk
    // restarts it. Paused for back-pressure, the server cannot send: a slow reader is not an idle
    // server, so the timer waits again. Unref'd: only the connection itself may keep a process alive.
    const idle = setTimeout(() => {
      if (paused) idle.refresh();
      else fail(new Error('idle timeout'));
    }, idleMs);
    idle.unref();

    const handle = (events: ParserEvent[]) => {
      for (const event of events) {
        if (event.type === 'head') {
          headed = true;
          resolve({ status: event.status, headers: event.headers, body: iterate(), cancel });
        } else if (event.type === 'data') {
          if (event.chunk.byteLength === 0) continue;
          queue.push(event.chunk);
          queued += event.chunk.byteLength;
          if (queued > HIGH_WATER && !paused) {
            paused = true;
            wire.pause();
          }
        } else {
          ended = true;
          release();
        }
      }
      notify();
    };
    const parse = (step: () => ParserEvent[]) => {
      try {
        handle(step());
      } catch (error) {
        fail(error as Error);
      }
    };
    const wire: Wire = dial({
      data: (chunk) => {
        idle.refresh();
        parse(() => parser.push(chunk));
      },
      end: () => {
        parse(() => parser.finish());
        if (!ended) fail(new Error('connection closed'));
      },
      error: fail,
    });
    signal.addEventListener('abort', onAbort, { once: true });

    // After cancel() every read throws, even when the whole body had already arrived: a caller that
    // gave up on a response must never mistake what is left for a complete body.
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      queue.length = 0;
      release();
      notify();
    };
    async function* iterate(): AsyncGenerator<Uint8Array> {
      for (;;) {
        if (cancelled) throw new Error('cancelled');
        const chunk = queue.shift();
        if (chunk !== undefined) {
          queued -= chunk.byteLength;
          if (queued <= HIGH_WATER && paused) {
            paused = false;
            idle.refresh();
            wire.resume();
          }
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

    wire.write(text);
  });
}
