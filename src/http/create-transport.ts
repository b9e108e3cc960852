// Picks the transport per request: HTTP/1.1 over node:net / node:tls unless undici would send the
// request through a proxy. undici is imported lazily, on the first request that really needs a
// proxy, so a hook whose provider NO_PROXY covers (a loopback knowledge base, say) never loads it.
import type { Environment } from '../base/environment.js';
import { goesDirect, readProxySettings } from './proxy-env.js';
import type { TransportHandle, TransportOptions } from './transport.js';
import { createNodeTransport } from './transport-node.js';

export interface CreateTransportOptions extends TransportOptions {
  /** Extra trust anchors (PEM) for HTTPS targets. */
  ca?: string;
}

/**
 * Throws `ConfigurationError('proxy-invalid')` for an unusable proxy value. Callers must always
 * `await handle.close()` (in a `finally`): it destroys the proxy agent and its sockets.
 */
export async function createTransport(
  env: Environment,
  options: CreateTransportOptions,
): Promise<TransportHandle> {
  const proxy = readProxySettings(env);
  const direct = createNodeTransport(options);
  if (proxy === undefined) return { transport: direct, close: async () => {} };
  let proxied: Promise<TransportHandle> | undefined;
  return {
    transport: {
      post: async (request) => {
        if (goesDirect(new URL(request.url), proxy)) return direct.post(request);
        proxied ??= import('./transport-proxy.js').then((m) => m.createProxyTransport(proxy, options));
        return (await proxied).transport.post(request);
      },
    },
    // A proxy transport that failed to start has nothing to release.
    close: async () => {
      await proxied?.then(
        (handle) => handle.close(),
        () => {},
      );
    },
  };
}
