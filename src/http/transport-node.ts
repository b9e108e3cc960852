// Default transport on node:http / node:https: no undici on the hook's hot path (a first `fetch`
// costs ~35 ms of start-up, a plain request far less). One socket per request, always destroyed.
import http from 'node:http';
import https from 'node:https';
import type { Transport, TransportOptions, TransportRequest, TransportResponse } from './transport.js';

export interface NodeTransportOptions extends TransportOptions {
  /** Extra trust anchors (PEM) for HTTPS, e.g. a private CA or a test certificate. */
  ca?: string;
}

export function createNodeTransport(options: NodeTransportOptions): Transport {
  return { post: (request) => post(request, options) };
}

function post(request: TransportRequest, options: NodeTransportOptions): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const { signal } = request;
    if (signal.aborted) {
      reject(new Error('aborted before sending'));
      return;
    }
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new Error('unsupported scheme'));
      return;
    }
    const payload = Buffer.from(request.body, 'utf8');
    const requestOptions: https.RequestOptions = {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(payload.length) },
      // No pooling: a kept-alive socket would hold the short-lived hook process open.
      agent: false,
      // Idle backstop for connect, headers and body when the caller's signal never fires.
      timeout: options.timeoutMs,
    };
    if (options.ca !== undefined && url.protocol === 'https:') requestOptions.ca = options.ca;

    let req: http.ClientRequest;
    try {
      req = (url.protocol === 'https:' ? https : http).request(url, requestOptions);
    } catch (error) {
      // Node rejects bad header characters synchronously (e.g. a newline in a credential).
      reject(error);
      return;
    }
    let res: http.IncomingMessage | undefined;
    const destroyAll = (error?: Error): void => {
      res?.destroy(error);
      req.destroy(error);
    };
    const onAbort = (): void => destroyAll(new Error('aborted'));
    const release = (): void => signal.removeEventListener('abort', onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
    req.on('close', release);
    req.on('timeout', () => destroyAll(new Error('idle timeout')));
    // After the head has arrived the error is reported through the body iteration instead.
    req.on('error', (error) => {
      release();
      reject(error);
    });
    req.on('response', (response) => {
      res = response;
      // Errors surface through iteration; without a listener an early error would crash the process.
      response.on('error', () => {});
      response.on('close', release);
      resolve({
        status: response.statusCode ?? 0,
        headers: flattenHeaders(response.headers),
        body: iterate(response),
        cancel: () => destroyAll(new Error('cancelled')),
      });
    });
    req.end(payload);
  });
}

async function* iterate(response: http.IncomingMessage): AsyncGenerator<Uint8Array> {
  for await (const chunk of response) yield chunk as Uint8Array;
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
