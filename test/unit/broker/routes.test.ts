// The broker's route matcher: exactly the pinned method + path pairs, and nothing that a lenient
// URL parser would turn into one of them.
import { describe, expect, it } from 'vitest';
import { matchRoute, type Route, type RouteMatch } from '../../../src/broker/routes.js';

const MODEL: Route[] = [
  { method: 'POST', path: '/v1/chat/completions' },
  { method: 'GET', path: '/v1/models' },
];
const MEM0_BEHIND_PREFIX: Route[] = [
  { method: 'POST', path: '/mem0/v3/memories/search/' },
  { method: 'POST', path: '/mem0/v3/memories/add/' },
];

describe('matchRoute', () => {
  it.each<[string, Route[], string, string, RouteMatch]>([
    ['a pinned POST', MODEL, 'POST', '/v1/chat/completions', { ok: true, route: MODEL[0]! }],
    ['a pinned GET', MODEL, 'GET', '/v1/models', { ok: true, route: MODEL[1]! }],
    [
      'a Mem0 path under its basePath, trailing slash kept',
      MEM0_BEHIND_PREFIX,
      'POST',
      '/mem0/v3/memories/add/',
      { ok: true, route: MEM0_BEHIND_PREFIX[1]! },
    ],
    ['a path off the list', MODEL, 'POST', '/v1/embeddings', { ok: false, reason: 'path' }],
    [
      'the routed path with another method',
      MODEL,
      'DELETE',
      '/v1/chat/completions',
      { ok: false, reason: 'method' },
    ],
    ['GET on a POST-only path', MODEL, 'GET', '/v1/chat/completions', { ok: false, reason: 'method' }],
    ['a lower-case method', MODEL, 'post', '/v1/chat/completions', { ok: false, reason: 'method' }],
    ['a query string', MODEL, 'GET', '/v1/models?limit=1', { ok: false, reason: 'query' }],
    ['an empty query string', MODEL, 'GET', '/v1/models?', { ok: false, reason: 'query' }],
    ['a fragment', MODEL, 'GET', '/v1/models#x', { ok: false, reason: 'query' }],
    [
      'absolute-form (another origin)',
      MODEL,
      'POST',
      'http://evil.example/v1/chat/completions',
      { ok: false, reason: 'target' },
    ],
    ['asterisk-form', MODEL, 'OPTIONS', '*', { ok: false, reason: 'target' }],
    ['an empty target', MODEL, 'GET', '', { ok: false, reason: 'target' }],
    [
      'a dot segment that would normalise onto a route',
      MODEL,
      'POST',
      '/v1/x/../chat/completions',
      { ok: false, reason: 'path' },
    ],
    ['a doubled slash', MODEL, 'POST', '//v1/chat/completions', { ok: false, reason: 'path' }],
    ['a percent-encoded character', MODEL, 'POST', '/v1/chat%2Fcompletions', { ok: false, reason: 'path' }],
    ['another case', MODEL, 'POST', '/V1/chat/completions', { ok: false, reason: 'path' }],
    [
      'a trailing slash the route does not have',
      MODEL,
      'POST',
      '/v1/chat/completions/',
      { ok: false, reason: 'path' },
    ],
    [
      'the route without its basePath',
      MEM0_BEHIND_PREFIX,
      'POST',
      '/v3/memories/add/',
      { ok: false, reason: 'path' },
    ],
    ['a prefix of a route', MODEL, 'POST', '/v1/chat', { ok: false, reason: 'path' }],
    ['an empty route table', [], 'POST', '/v1/chat/completions', { ok: false, reason: 'path' }],
  ])('%s', (_name, routes, method, target, expected) => {
    expect(matchRoute(routes, method, target)).toEqual(expected);
  });
});
