// The one table of provider faults that drives every surface: the auto-recall hook, MCP
// context_search and MCP context_remember. What each surface must do is fixed per surface
// (hook: `{}`; search: one fixed error text); only the memory write outcome depends on the fault,
// per docs/contracts.md, "Outcome mapping": a thrown 400/401/403/404 is `failed`, anything else (other statuses, timeouts,
// transport errors, redirects, oversize, undecodable or unexpected bodies) is `unknown`.
import type { Fault } from '../../fixtures/fault-server.js';
import type { ProxyFault } from '../../fixtures/proxy.js';

export type RememberOutcome = 'failed' | 'unknown';

export type FaultSource =
  /** A loopback fault server playing this fault on every path. */
  | { kind: 'server'; fault: Fault }
  /** A loopback port with no listener. */
  | { kind: 'refused' }
  /** An HTTPS origin reached through a loopback proxy with this fault. */
  | { kind: 'proxy'; fault: Exclude<ProxyFault, 'none'> };

export interface FaultCase {
  label: string;
  source: FaultSource;
  remember: RememberOutcome;
}

const server = (label: string, fault: Fault, remember: RememberOutcome = 'unknown'): FaultCase => ({
  label,
  source: { kind: 'server', fault },
  remember,
});

export const FAULT_CASES: readonly FaultCase[] = [
  { label: 'connection refused', source: { kind: 'refused' }, remember: 'unknown' },
  server('reset before the response head', 'reset-before-headers'),
  server('reset in the middle of the headers', 'reset-mid-headers'),
  server('reset in the middle of the body', 'reset-mid-body'),
  server('never answers', 'never-answer'),
  server('headers, then silence', 'headers-then-silence'),
  server('drips one byte per second', 'drip'),
  server('2 MiB body, declared in content-length', 'oversize-declared'),
  server('2 MiB body, streamed without content-length', 'oversize-streamed'),
  server('endless chunked body', 'endless-chunked'),
  server('endless 1xx interim responses', 'endless-interim'),
  server('endless chunked trailers', 'endless-trailers'),
  server('content-length larger than the body', 'wrong-content-length'),
  server('empty 200 body', 'empty'),
  server('invalid UTF-8', 'invalid-utf8'),
  server('invalid JSON', 'invalid-json'),
  server('JSON array at the root', 'json-array'),
  server('wrong envelope (`{"data":[]}`)', 'wrong-envelope'),
  server('301 redirect', 'redirect-301'),
  server('302 redirect', 'redirect-302'),
  server('307 redirect', 'redirect-307'),
  server('HTTP 400', 'status-400', 'failed'),
  server('HTTP 401', 'status-401', 'failed'),
  server('HTTP 403', 'status-403', 'failed'),
  server('HTTP 404', 'status-404', 'failed'),
  server('HTTP 422', 'status-422'),
  server('HTTP 429 with Retry-After', 'status-429'),
  server('HTTP 500', 'status-500'),
  server('HTTP 502', 'status-502'),
  server('HTTP 503', 'status-503'),
  server('HTTP 504', 'status-504'),
  {
    label: 'black-hole proxy (CONNECT never answered)',
    source: { kind: 'proxy', fault: 'black-hole' },
    remember: 'unknown',
  },
  {
    label: 'proxy refuses CONNECT (403)',
    source: { kind: 'proxy', fault: 'refuse-connect' },
    remember: 'unknown',
  },
  // undici alone reconnects through these for as long as the request lasts (thousands of CONNECTs).
  {
    label: 'proxy hangs up after reading CONNECT',
    source: { kind: 'proxy', fault: 'drop-connect' },
    remember: 'unknown',
  },
  {
    label: 'proxy answers CONNECT, then drops the tunnel',
    source: { kind: 'proxy', fault: 'drop-tunnel' },
    remember: 'unknown',
  },
];

export const FAULT_LABELS = FAULT_CASES.map((c) => c.label);
