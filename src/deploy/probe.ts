// `qwen-managed probe`, the core: one read-only search per profile against the configured provider,
// with the real credential, judged against the preset's exact wire contract. The result never holds
// the credential or any byte of the response: only the shape verdict, the scope verdict, counts and
// the latency. I/O (credentials, the transport, the clock) is injected by the command.

import { MAX_ITEMS } from '../base/limits.js';
import type { ProviderConfig } from '../config/schema.js';
import { isProviderRequestError } from '../http/request-error.js';
import type { Transport } from '../http/transport.js';
import { describeProvider } from '../providers/describe.js';
import { requestUrl, sendRequest } from '../providers/request.js';
import { isPlainObject } from '../text/json.js';

/** The query the probe searches for: harmless, recognisable in provider logs. */
export const PROBE_QUERY = 'qwen-managed provider probe';

export type ShapeVerdict = 'exact' | 'wrong' | 'no-answer';
/** `honoured`: every result carries the configured scope; `ignored`: one carries another scope. */
export type ScopeVerdict = 'honoured' | 'ignored' | 'not-confirmed' | 'not-applicable';

export interface ProbeResult {
  profile: string;
  /** `generic-http-search-v1`, or the Mem0 preset. */
  contract: string;
  /** The URL searched (an origin plus the contract's path: no credential, no query string). */
  url: string;
  ok: boolean;
  shape: ShapeVerdict;
  scope: ScopeVerdict;
  /** Results in the answer (before the 5-item cut), when the shape was readable. */
  results: number | null;
  latencyMs: number;
  /** What was found, in fixed words (never response bytes). */
  message: string;
}

export interface ProbeOptions {
  transport: Transport;
  /** Milliseconds from a monotonic clock. */
  now(): number;
  timeoutMs: number;
  /** True when the provider config points at the credential broker's listener (render wrote it so). */
  throughBroker?: boolean;
  /** Where the credential sent comes from, for a 401/403 to name (never its value). */
  credentialSource?: string;
}

/** A certificate the TLS client did not trust (Node's and OpenSSL's verification codes). */
const UNTRUSTED_CERTIFICATE = /CERT|UNABLE_TO_(GET|VERIFY)|SELF_SIGNED/;

/** Why a request reached no answer, from the transport's error code alone (its message may name hosts). */
function noAnswer(cause: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs} ms (timed out)`;
  const code =
    typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string'
      ? cause.code
      : undefined;
  if (code === undefined)
    return 'the connection closed before an answer: is it the service, and the scheme (http or https), you meant?';
  if (code === 'ECONNREFUSED')
    return 'the connection was refused (ECONNREFUSED): nothing listens at that address and port';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name does not resolve here (${code})`;
  if (UNTRUSTED_CERTIFICATE.test(code))
    return `its TLS certificate is not trusted here (${code}); a private CA is pinned with "tls": {"extraCaCertificates": …} in deployment.json`;
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_'))
    return `the TLS handshake failed (${code}): does it speak https on that port?`;
  return `no answer (${code}: the connection failed before an answer)`;
}

/** Every result an object with a string id and a non-empty content field: the runtimes' item shape. */
function malformedAt(
  raw: readonly unknown[],
  contentFields: readonly string[],
  idFields: readonly string[] = ['id'],
): number | undefined {
  const index = raw.findIndex(
    (item) =>
      !isPlainObject(item) ||
      !idFields.some((field) => typeof item[field] === 'string' || typeof item[field] === 'number') ||
      !contentFields.some((field) => typeof item[field] === 'string' && item[field] !== ''),
  );
  return index === -1 ? undefined : index;
}

/** Results carrying a scope field: each must hold the configured value (top level or in `metadata`). */
function scopeVerdict(
  raw: readonly unknown[],
  scope: Readonly<Record<string, string>>,
): { verdict: ScopeVerdict; detail: string } {
  const wanted = Object.entries(scope);
  if (wanted.length === 0) return { verdict: 'not-applicable', detail: 'the contract has no scope' };
  if (raw.length === 0) return { verdict: 'not-confirmed', detail: 'no results to check the scope on' };
  let carried = 0;
  for (const [index, item] of raw.entries()) {
    if (!isPlainObject(item)) continue;
    const metadata = isPlainObject(item.metadata) ? item.metadata : {};
    for (const [field, value] of wanted) {
      const seen = item[field] ?? metadata[field];
      if (seen === undefined || seen === null) continue;
      carried++;
      if (seen !== value)
        return {
          verdict: 'ignored',
          detail: `result ${index + 1} belongs to another ${field} than the configured one`,
        };
    }
  }
  return carried === 0
    ? { verdict: 'not-confirmed', detail: `no result carries ${wanted.map(([field]) => field).join(' or ')}` }
    : {
        verdict: 'honoured',
        detail: `every result carries the configured ${wanted.map(([field]) => field).join(', ')}`,
      };
}

export async function probeProvider(
  profile: string,
  provider: ProviderConfig,
  credential: string,
  options: ProbeOptions,
): Promise<ProbeResult> {
  // The request the runtimes would send, from the same description.
  const contract = describeProvider(provider);
  const request = contract.search.request(PROBE_QUERY, MAX_ITEMS);
  const base = { profile, contract: contract.name, url: requestUrl(request) };
  /** A probe that did not pass: the scope cannot be confirmed without a good answer. */
  const failed = (
    shape: 'no-answer' | 'wrong',
    results: number | null,
    latencyMs: number,
    message: string,
  ): ProbeResult => ({ ...base, ok: false, shape, scope: 'not-confirmed', results, latencyMs, message });
  const started = options.now();
  // The client keeps no cause (runtimes must not print host names); probe keeps its code to say why.
  let cause: unknown;
  const transport: Transport = {
    post: (sent) =>
      options.transport.post(sent).catch((error: unknown) => {
        cause = error;
        throw error;
      }),
  };
  let answer: unknown;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  try {
    answer = await sendRequest(transport, request, credential, deadline);
  } catch (error) {
    const latencyMs = Math.round(options.now() - started);
    const unreached = noAnswer(cause, deadline.aborted, options.timeoutMs);
    const why = !isProviderRequestError(error)
      ? 'the request failed'
      : error.kind === 'http-status'
        ? `the provider answered HTTP ${error.status}${error.status === 401 || error.status === 403 ? ` (the credential was refused)${options.credentialSource === undefined ? '' : `. Fix: put the key this service expects into ${options.credentialSource}`}` : error.status === 404 ? ' (no such path: wrong preset or basePath?)' : ''}`
        : error.kind === 'incomplete'
          ? // Through a broker, what answers nothing is first the broker: a stopped one answers nothing.
            options.throughBroker !== true
            ? unreached
            : `${unreached}, from the credential broker's listener ${new URL(base.url).host}: is the broker running? (systemctl status qwen-managed-broker.service)`
          : 'the answer is not the JSON the contract defines (or a redirect, which is never followed)';
    return failed('no-answer', null, latencyMs, why);
  }
  const latencyMs = Math.round(options.now() - started);
  const refusal = contract.search.rejection?.(answer);
  if (refusal !== undefined) return failed('no-answer', null, latencyMs, refusal);
  let raw: unknown[];
  try {
    raw = contract.search.results(answer);
  } catch {
    return failed(
      'wrong',
      null,
      latencyMs,
      `the answer is JSON but not ${contract.search.answerShape}: this endpoint does not speak ${contract.name}`,
    );
  }
  const bad = malformedAt(raw, contract.search.contentFields, contract.search.idFields);
  if (bad !== undefined) {
    return failed(
      'wrong',
      raw.length,
      latencyMs,
      `result ${bad + 1} lacks an id or a ${contract.search.contentFields.join('/')} text: this endpoint does not speak ${contract.name}`,
    );
  }
  const scope = scopeVerdict(raw, contract.search.scope);
  return {
    ...base,
    ok: scope.verdict !== 'ignored',
    shape: 'exact',
    scope: scope.verdict,
    results: raw.length,
    latencyMs,
    message: `${raw.length} result(s) in the exact shape; ${scope.detail}`,
  };
}
