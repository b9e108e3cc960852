// Reads the proxy variables from an injected environment. Pure: no undici here, so the no-proxy
// path never loads it. Mirrors undici's precedence (lower-case first) but treats "" as unset.
import { type Environment, readOwnEnv } from '../base/environment.js';
import { ConfigurationError } from '../base/errors.js';
import { hasUnsafeUrlCharacter } from '../base/origin.js';

export interface ProxySettings {
  /** Proxy for http: targets ("" = none). */
  httpProxy: string;
  /** Proxy for https: targets ("" = undici falls back to `httpProxy`). */
  httpsProxy: string;
  /** NO_PROXY list, passed through to undici verbatim ("" = proxy everything). */
  noProxy: string;
}

function read(env: Environment, lower: string, upper: string): string {
  // Own properties only: a polluted prototype must not configure a proxy.
  for (const name of [lower, upper]) {
    const value = readOwnEnv(env, name);
    if (value !== undefined && value !== '') return value;
  }
  return '';
}

/**
 * Returns the proxy settings when HTTP_PROXY/HTTPS_PROXY (either case) is set, else `undefined`.
 * Throws `ConfigurationError('proxy-invalid')` for a value that cannot be a proxy URL; the error
 * never carries the value (it may embed proxy credentials).
 */
export function readProxySettings(env: Environment): ProxySettings | undefined {
  const httpProxy = read(env, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = read(env, 'https_proxy', 'HTTPS_PROXY');
  if (httpProxy === '' && httpsProxy === '') return undefined;
  for (const value of [httpProxy, httpsProxy]) {
    if (value !== '' && !isUsableProxyUrl(value)) throw new ConfigurationError('proxy-invalid');
  }
  return { httpProxy, httpsProxy, noProxy: read(env, 'no_proxy', 'NO_PROXY') };
}

/** An absolute http(s) URL with a host; nothing the WHATWG parser would silently repair. */
export function isUsableProxyUrl(value: string): boolean {
  // URL parsing drops tabs/newlines and rewrites backslashes: refuse rather than guess.
  if (hasUnsafeUrlCharacter(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * True when undici's EnvHttpProxyAgent (7.30, built from `settings`) would send a request to `target`
 * without a proxy: no proxy for its scheme (https falls back to the http proxy, http never to the
 * https one), or a NO_PROXY match. Mirrors undici's rules exactly — a request we send directly is one
 * undici would have sent directly — so such requests never need undici loaded.
 */
export function goesDirect(target: URL, settings: ProxySettings): boolean {
  const proxy = target.protocol === 'https:' ? settings.httpsProxy || settings.httpProxy : settings.httpProxy;
  return proxy === '' || matchesNoProxy(target, settings.noProxy);
}

function matchesNoProxy(target: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter((entry) => entry !== '');
  if (entries.length === 0) return false;
  if (noProxy === '*') return true;
  // undici's view of the target: the host with IPv6 brackets kept, the port with scheme defaults.
  const hostname = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  for (const entry of entries) {
    const withPort = /^(.+):(\d+)$/.exec(entry);
    const entryHost = (withPort?.[1] ?? entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = withPort === null ? 0 : Number.parseInt(withPort[2]!, 10);
    if (entryPort !== 0 && entryPort !== port) continue;
    // The host itself, or any subdomain of it.
    if (hostname === entryHost || hostname.slice(-(entryHost.length + 1)) === `.${entryHost}`) return true;
  }
  return false;
}
