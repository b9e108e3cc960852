// Which requests a broker listener forwards: the pinned method + path pairs of its route table,
// matched exactly against the request target as it arrived. Pure: the table is data (broker.json,
// rendered from the providers' own request descriptions and the pinned Qwen's model client).

export interface Route {
  method: string;
  /** An absolute path, exactly as sent upstream (a Mem0 basePath included). */
  path: string;
}

export type RouteMatch =
  | { ok: true; route: Route }
  /**
   * `target`: not an origin-form path (absolute-form, `*`, empty); `query`: a query string or
   * fragment, which no route has; `path`: no route has this path; `method`: the path is routed, but
   * for other methods.
   */
  | { ok: false; reason: 'target' | 'query' | 'path' | 'method' };

/**
 * The route a request target matches. No normalisation of any kind — no decoding of `%xx`, no
 * folding of `//`, `.` or `..` segments, no case folding — so the upstream receives byte for byte a
 * path the administrator's configuration produced, and nothing else.
 */
export function matchRoute(routes: readonly Route[], method: string, target: string): RouteMatch {
  // Origin-form only: an absolute-form target (`http://other/…`) would name another origin.
  if (!target.startsWith('/')) return { ok: false, reason: 'target' };
  if (target.includes('?') || target.includes('#')) return { ok: false, reason: 'query' };
  const samePath = routes.filter((route) => route.path === target);
  if (samePath.length === 0) return { ok: false, reason: 'path' };
  const route = samePath.find((r) => r.method === method);
  return route === undefined ? { ok: false, reason: 'method' } : { ok: true, route };
}

/** What the refusal says to the caller (and in the audit line), without echoing the target. */
export const ROUTE_REFUSALS: Readonly<Record<Exclude<RouteMatch, { ok: true }>['reason'], string>> = {
  target: 'the request target is not a path',
  query: 'a query string or fragment is not on any route',
  path: 'this path is not on the route list of this listener',
  method: 'this method is not allowed on this path',
};
