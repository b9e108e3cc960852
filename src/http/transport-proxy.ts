// Proxy transport on undici's EnvHttpProxyAgent. Loaded only through `await import()` when a proxy
// variable is set, so the no-proxy path never initialises undici.
//
// Measured on undici 7.30.2 (see test/unit/http/transport-proxy.test.ts):
// - a stalled CONNECT ignores the request's AbortSignal and waits for the headers timeout of the
//   agent's internal proxy client (300 s by default, NOT inherited from the agent's own options),
//   so timeouts are pushed into every client through `factory`/`clientFactory`, and the abort is
//   raced here so the caller's promise settles at once;
// - EnvHttpProxyAgent no longer prints an "experimental" warning, so nothing is suppressed;
// - a proxy that reads the CONNECT and hangs up fails the tunnel with a socket error, which undici
//   treats as recoverable and answers by connecting again at once, for as long as the request
//   lasts (about 2,000 CONNECTs in a 1.5 s hook search), so every connect is made final here.
import type { Readable } from 'node:stream';
import { type buildConnector, EnvHttpProxyAgent, Pool, request } from 'undici';
import { ConfigurationError } from '../base/errors.js';
import type { ProxySettings } from './proxy-env.js';
import { processLookup } from './single-flight-lookup.js';
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
  // Every pool undici creates (direct, tunnelled, and the CONNECT client itself) gets the timeouts,
  // and at most one connection attempt per request.
  const factory = (origin: string | URL, opts: Pool.Options) =>
    new Pool(origin, { ...opts, ...timeouts, connect: finalConnect(opts.connect) });
  // One lookup per host name at a time (the proxy's, a NO_PROXY target's): see single-flight-lookup.ts.
  const lookup = processLookup();
  const tls =
    options.ca === undefined
      ? { timeout: timeoutMs, lookup }
      : { timeout: timeoutMs, ca: options.ca, lookup };
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
      proxyTls: { timeout: timeoutMs, lookup },
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

/** Thrown in place of a failed connect; its code is none of those undici retries on. */
class ConnectFailed extends Error {
  readonly code = 'QWEN_MANAGED_CONNECT_FAILED';
}

/**
 * One search is one connection attempt per hop: a failed connect (a tunnel dropped after CONNECT
 * included) fails the queued requests instead of letting undici reconnect. Connect options that
 * are not a function are connectors undici builds itself from plain TCP/TLS settings, whose
 * failures it already treats as final.
 */
function finalConnect(connect: Pool.Options['connect']): Pool.Options['connect'] {
  if (typeof connect !== 'function') return connect;
  return (options: buildConnector.Options, callback: buildConnector.Callback) =>
    connect(options, (...args) => {
      if (args[0] === null) callback(...args);
      else callback(new ConnectFailed('the connection could not be established', { cause: args[0] }), null);
    });
}

function post(agent: EnvHttpProxyAgent, req: TransportRequest): Promise<TransportResponse> {
  const { signal } = req;
  if (signal.aborted) return Promise.reject(new Error('aborted before sending'));
  return new Promise<TransportResponse>((resolve, reject) => {
    let settled = false;
    let body: Readable | undefined;
    // undici gets a signal of its own, aborted with the caller's (see onAbort).
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
