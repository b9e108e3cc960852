// Picks the transport: HTTP/1.1 over node:net / node:tls unless a proxy variable is set. undici is
// imported lazily so the auto-recall hook's no-proxy path never pays for initialising it.
import type { Environment } from '../config/environment.js';
import { readProxySettings } from './proxy-env.js';
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
  if (proxy === undefined) {
    return { transport: createNodeTransport(options), close: async () => {} };
  }
  const { createProxyTransport } = await import('./transport-proxy.js');
  return createProxyTransport(proxy, options);
}
