// The default transport on node:http / node:https instead of HTTP/1.1 spoken over node:net / node:tls
// (src/http/transport-node.ts), for `npm run bench` only: enough for the bench's one POST.
import type { IncomingMessage } from 'node:http';
import type {
  Transport,
  TransportOptions,
  TransportRequest,
  TransportResponse,
} from '../../../src/http/transport.js';

export interface NodeTransportOptions extends TransportOptions {
  ca?: string;
}

export function createNodeTransport(options: NodeTransportOptions): Transport {
  return { post: (request) => post(request, options) };
}

async function post(request: TransportRequest, options: NodeTransportOptions): Promise<TransportResponse> {
  const { signal } = request;
  if (signal.aborted) throw new Error('aborted before sending');
  const url = new URL(request.url);
  const client = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      agent: false,
      headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body), connection: 'close' },
      ...(options.ca === undefined ? {} : { ca: options.ca }),
    });
    signal.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
    req.setTimeout(options.timeoutMs, () => req.destroy(new Error('idle timeout')));
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      resolve({
        status: res.statusCode ?? 0,
        headers,
        body: (async function* () {
          for await (const chunk of res) yield chunk as Uint8Array;
        })(),
        cancel: () => req.destroy(),
      });
    });
    req.end(request.body);
  });
}
