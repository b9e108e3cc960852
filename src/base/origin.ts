// Origin rules shared by the config schema and the HTTP client (docs/contracts.md, "HTTP client rules").

/** Hosts plain http: may name without allowInsecureHttp (the traffic never leaves the machine). */
export const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export type OriginProblem =
  | 'control-or-backslash'
  | 'unparsable'
  | 'credentials'
  | 'query-or-fragment'
  | 'path'
  | 'scheme'
  | 'insecure-http';

/**
 * True when `raw` holds a character WHATWG URL parsing would silently strip or rewrite (C0 controls,
 * space, DEL, backslash): such text is refused before parsing, never repaired.
 */
export function hasUnsafeUrlCharacter(raw: string): boolean {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f || c === 0x5c) return true;
  }
  return false;
}

/**
 * Validates an origin (scheme + host + optional port, optional trailing `/`).
 * Returns the normalised origin (`URL.origin`, what every request is sent to) or the problem found.
 */
export function checkOrigin(
  raw: string,
  options: { allowInsecureHttp?: boolean } = {},
): { ok: true; origin: string } | { ok: false; problem: OriginProblem } {
  if (hasUnsafeUrlCharacter(raw)) return { ok: false, problem: 'control-or-backslash' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: 'unparsable' };
  }
  // Judged on the parsed URL, as upstream does: an empty userinfo (`https://@host`, `https://:@host`)
  // or a bare `?`/`#` parses to nothing, carries nothing, and an upstream config with it must load.
  if (url.username !== '' || url.password !== '') return { ok: false, problem: 'credentials' };
  if (url.search !== '' || url.hash !== '') return { ok: false, problem: 'query-or-fragment' };
  if (url.pathname !== '/' && url.pathname !== '') return { ok: false, problem: 'path' };
  if (url.protocol === 'https:') return { ok: true, origin: url.origin };
  if (url.protocol !== 'http:') return { ok: false, problem: 'scheme' };
  if (LOOPBACK_HOSTS.has(url.hostname) || options.allowInsecureHttp === true) {
    return { ok: true, origin: url.origin };
  }
  return { ok: false, problem: 'insecure-http' };
}

/** Validates a Mem0 `basePath`: a static reverse-proxy prefix, never a traversal or an encoded form. */
export function isValidBasePath(basePath: string): boolean {
  if (basePath === '') return true;
  if (!basePath.startsWith('/')) return false;
  if (basePath.includes('//')) return false;
  for (let i = 0; i < basePath.length; i++) {
    const c = basePath.charCodeAt(i);
    // C0 controls, space, DEL, and the characters that would change how the URL is parsed.
    if (c <= 0x20 || c === 0x7f) return false;
    if (c === 0x3f /* ? */ || c === 0x23 /* # */ || c === 0x5c /* \ */ || c === 0x25 /* % */) return false;
    // Any Unicode whitespace (NBSP, U+2028, …) as well.
    if (/\s/u.test(basePath[i]!)) return false;
  }
  for (const segment of basePath.split('/')) {
    if (segment === '.' || segment === '..') return false;
  }
  return true;
}

/** Joins origin + basePath (trailing `/` dropped) + a preset path. Nothing else is joined. */
export function joinUrl(origin: string, basePath: string, path: string): string {
  const base = basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
  return origin + base + path;
}
