// Proxy transport on undici's EnvHttpProxyAgent. Loaded only through `await import()` when a proxy
// variable is set, so the no-proxy path never initialises undici.
//
// Measured on undici 7.30.2 (see test/unit/http/transport-proxy.test.ts):
// - a stalled CONNECT ignores the request's AbortSignal and waits for the headers timeout of the
//   agent's internal proxy client (300 s by default, NOT inherited from the agent's own options),
//   so timeouts are pushed into every client through `factory`/`clientFactory`, and the abort is
//   raced here so the caller's promise settles at once;
// - EnvHttpProxyAgent no longer prints an "experimental" warning, so nothing is suppressed.
import type { Readable } from 'node:stream';
import { EnvHttpProxyAgent, Pool, request } from 'undici';
import { ConfigurationError } from '../config/errors.js';
import type { ProxySettings } from './proxy-env.js';
import type { TransportHandle, TransportOptions, TransportRequest, TransportResponse } from './transport.js';

export interface ProxyTransportOptions extends TransportOptions {
  /** Extra trust anchors (PEM) for HTTPS targets, e.g. a private CA or a test certificate. */
  ca?: string;
}

export function createProxyTransport(
  settings: ProxySettings,
  options: ProxyTransportOptions,
): TransportHandle {
  const timeoutMs = Math.max(1, Math.ceil(options.timeoutMs));
  const timeouts = { connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  // Every pool undici creates (direct, tunnelled, and the CONNECT client itself) gets the timeouts.
  const factory = (origin: string | URL, opts: object) => new Pool(origin, { ...opts, ...timeouts });
  const tls = options.ca === undefined ? { timeout: timeoutMs } : { timeout: timeoutMs, ca: options.ca };
  let agent: EnvHttpProxyAgent;
  try {
    agent = new EnvHttpProxyAgent({
      // Explicit values (never undefined) so undici does not fall back to process.env.
      httpProxy: settings.httpProxy,
      httpsProxy: settings.httpsProxy,
      noProxy: settings.noProxy,
      ...timeouts,
      factory,
      clientFactory: factory,
      connect: tls,
      proxyTls: { timeout: timeoutMs },
      requestTls: tls,
      // Plain-http targets go in absolute form (what curl does); proxies often refuse CONNECT to
      // ports other than 443. HTTPS targets are always tunnelled.
      proxyTunnel: false,
    });
  } catch {
    // undici's message would quote the proxy URL, which may hold credentials.
    throw new ConfigurationError('proxy-invalid');
  }
  return {
    transport: { post: (req) => post(agent, req) },
    close: async () => {
      // destroy, not close: a stalled tunnel must not keep the process alive.
      await agent.destroy().catch(() => {});
    },
  };
}

function post(agent: EnvHttpProxyAgent, req: TransportRequest): Promise<TransportResponse> {
  const { signal } = req;
  if (signal.aborted) return Promise.reject(new Error('aborted before sending'));
  return new Promise<TransportResponse>((resolve, reject) => {
    let settled = false;
    let body: Readable | undefined;
    // undici wants a real AbortSignal; the caller's may be a lighter one (transport.ts).
    const undiciAbort = new AbortController();
    const onAbort = (): void => {
      undiciAbort.abort();
      body?.destroy(new Error('aborted'));
      // Settle now: undici may still be waiting on a stalled CONNECT that ignores the signal.
      if (!settled) {
        settled = true;
        reject(new Error('aborted'));
      }
    };
    const release = (): void => signal.removeEventListener('abort', onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    request(req.url, {
      method: 'POST',
      headers: { ...req.headers },
      body: req.body,
      dispatcher: agent,
      signal: undiciAbort.signal,
    }).then(
      (response) => {
        if (settled) {
          response.body.destroy();
          return;
        }
        settled = true;
        body = response.body;
        // Errors surface through iteration; without a listener an early error would crash the process.
        body.on('error', () => {});
        body.on('close', release);
        resolve({
          status: response.statusCode,
          headers: flattenHeaders(response.headers),
          body: iterate(body),
          cancel: () => response.body.destroy(new Error('cancelled')),
        });
      },
      (error: unknown) => {
        release();
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}

async function* iterate(body: Readable): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) yield chunk as Uint8Array;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
