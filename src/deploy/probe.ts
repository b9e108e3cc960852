// `qwen-managed probe`, the core: one read-only search per profile against the configured provider,
// with the real credential, judged against the preset's exact wire contract. The result never holds
// the credential or any byte of the response: only the shape verdict, the scope verdict, counts and
// the latency. I/O (credentials, the transport, the clock) is injected by the command.

import { MAX_ITEMS } from '../base/limits.js';
import { joinUrl } from '../base/origin.js';
import type { ProviderConfig } from '../config/schema.js';
import {
  MEM0_PRESETS,
  PLATFORM_V3_ORIGIN,
  type PresetSpec,
  SCOPE_KEYS,
  SCOPE_WIRE_NAME,
  type ScopeKey,
} from '../contracts/mem0-presets.js';
import { postJson } from '../http/client.js';
import { isProviderRequestError } from '../http/errors.js';
import type { Transport } from '../http/transport.js';
import {
  DATAWORKS_CONTENT_FIELDS,
  DATAWORKS_ID_FIELDS,
  DATAWORKS_SEARCH_PATH,
  dataworksCredentialHeader,
  dataworksSearchBody,
  openEnvelope,
  parseDataworksSearchResponse,
} from '../providers/dataworks-bff.js';
import {
  GENERIC_SEARCH_PATH,
  genericCredentialHeader,
  genericSearchBody,
  parseGenericSearchResponse,
} from '../providers/generic-http.js';
import { buildSearchBody, credentialHeader, parseMem0SearchResponse } from '../providers/mem0/engine.js';
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
  /** Test hook: replaces https://api.mem0.ai for the legacy `mem0-platform-v3` block. */
  platformOrigin?: string;
}

interface Contract {
  contract: string;
  url: string;
  credential: { name: string; value: string };
  body: unknown;
  /** Wire name → the value the scope must have, for the results that carry it. */
  scope: Map<string, string>;
  /** Throws on a top-level shape the runtimes would refuse; returns the raw results. */
  read(answer: unknown): { raw: unknown[]; kept: number };
  contentFields: readonly string[];
  /** Where a result's id may be (default `id`). */
  idFields?: readonly string[];
  /** The answer's own refusal (the BFF's envelope code), in fixed words; undefined when it is not one. */
  refusal?(answer: unknown): string | undefined;
  /** The top-level shape the contract defines, for the "wrong shape" message. */
  shape: string;
}

function mem0Contract(
  name: string,
  preset: PresetSpec,
  origin: string,
  basePath: string,
  scope: Partial<Record<ScopeKey, string>>,
  credential: string,
): Contract {
  const wanted = new Map<string, string>();
  for (const key of SCOPE_KEYS) if (scope[key] !== undefined) wanted.set(SCOPE_WIRE_NAME[key], scope[key]!);
  return {
    contract: name,
    url: joinUrl(origin, basePath, preset.searchPath),
    credential: credentialHeader(preset.auth, credential),
    body: buildSearchBody(preset, scope, PROBE_QUERY, MAX_ITEMS),
    scope: wanted,
    read: (answer) => ({
      kept: parseMem0SearchResponse(preset, answer, MAX_ITEMS).length,
      raw: (answer as { results: unknown[] }).results,
    }),
    contentFields: preset.contentFields,
    shape: '{"results": [...]}',
  };
}

function contractFor(provider: ProviderConfig, credential: string, options: ProbeOptions): Contract {
  switch (provider.type) {
    case 'generic-http-search-v1':
      return {
        contract: provider.type,
        url: joinUrl(provider.baseUrl, '', GENERIC_SEARCH_PATH),
        credential: genericCredentialHeader(credential),
        body: genericSearchBody(PROBE_QUERY),
        scope: new Map(),
        read: (answer) => ({
          kept: parseGenericSearchResponse(answer, MAX_ITEMS).length,
          raw: (answer as { items: unknown[] }).items,
        }),
        contentFields: ['content'],
        shape: '{"items": [...]}',
      };
    case 'dataworks-bff-memory-v1':
      return {
        contract: provider.type,
        url: joinUrl(provider.baseUrl, '', DATAWORKS_SEARCH_PATH),
        credential: dataworksCredentialHeader(credential),
        body: dataworksSearchBody(PROBE_QUERY, MAX_ITEMS),
        // The BFF scopes by the token: nothing on the wire to check.
        scope: new Map(),
        read: (answer) => {
          const kept = parseDataworksSearchResponse(answer, MAX_ITEMS).length;
          const data = (answer as { data: unknown }).data;
          return { kept, raw: Array.isArray(data) ? data : (data as { results: unknown[] }).results };
        },
        contentFields: DATAWORKS_CONTENT_FIELDS,
        idFields: DATAWORKS_ID_FIELDS,
        refusal: (answer) =>
          openEnvelope(answer).kind === 'rejected'
            ? 'the BFF refused the search (its envelope code is neither 0 nor 200: check the token and its rights)'
            : undefined,
        shape: '{"code": 0, "data": [...]}',
      };
    case 'mem0-platform-v3':
      return mem0Contract(
        'mem0-platform-v3',
        MEM0_PRESETS['mem0-platform-v3'],
        options.platformOrigin ?? PLATFORM_V3_ORIGIN,
        '',
        { appId: provider.appId },
        credential,
      );
    case 'mem0':
      return mem0Contract(
        provider.preset,
        MEM0_PRESETS[provider.preset],
        new URL(provider.endpoint.origin).origin,
        provider.endpoint.basePath,
        provider.scope,
        credential,
      );
  }
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
  wanted: ReadonlyMap<string, string>,
): { verdict: ScopeVerdict; detail: string } {
  if (wanted.size === 0) return { verdict: 'not-applicable', detail: 'the contract has no scope' };
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
    ? { verdict: 'not-confirmed', detail: `no result carries ${[...wanted.keys()].join(' or ')}` }
    : { verdict: 'honoured', detail: `every result carries the configured ${[...wanted.keys()].join(', ')}` };
}

export async function probeProvider(
  profile: string,
  provider: ProviderConfig,
  credential: string,
  options: ProbeOptions,
): Promise<ProbeResult> {
  const contract = contractFor(provider, credential, options);
  const base = { profile, contract: contract.contract, url: contract.url };
  const started = options.now();
  let answer: unknown;
  try {
    answer = await postJson(options.transport, {
      url: contract.url,
      credential: contract.credential,
      body: contract.body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const latencyMs = Math.round(options.now() - started);
    const why = !isProviderRequestError(error)
      ? 'the request failed'
      : error.kind === 'http-status'
        ? `the provider answered HTTP ${error.status}${error.status === 401 || error.status === 403 ? ' (the credential was refused)' : error.status === 404 ? ' (no such path: wrong preset or basePath?)' : ''}`
        : error.kind === 'incomplete'
          ? `no answer within ${options.timeoutMs} ms (refused, reset or timed out)`
          : 'the answer is not the JSON the contract defines (or a redirect, which is never followed)';
    return {
      ...base,
      ok: false,
      shape: 'no-answer',
      scope: 'not-confirmed',
      results: null,
      latencyMs,
      message: why,
    };
  }
  const latencyMs = Math.round(options.now() - started);
  const refusal = contract.refusal?.(answer);
  if (refusal !== undefined)
    return {
      ...base,
      ok: false,
      shape: 'no-answer',
      scope: 'not-confirmed',
      results: null,
      latencyMs,
      message: refusal,
    };
  let read: { raw: unknown[]; kept: number };
  try {
    read = contract.read(answer);
  } catch {
    const want = contract.shape;
    return {
      ...base,
      ok: false,
      shape: 'wrong',
      scope: 'not-confirmed',
      results: null,
      latencyMs,
      message: `the answer is JSON but not ${want}: this endpoint does not speak ${contract.contract}`,
    };
  }
  const bad = malformedAt(read.raw, contract.contentFields, contract.idFields);
  if (bad !== undefined) {
    return {
      ...base,
      ok: false,
      shape: 'wrong',
      scope: 'not-confirmed',
      results: read.raw.length,
      latencyMs,
      message: `result ${bad + 1} lacks an id or a ${contract.contentFields.join('/')} text: this endpoint does not speak ${contract.contract}`,
    };
  }
  const scope = scopeVerdict(read.raw, contract.scope);
  return {
    ...base,
    ok: scope.verdict !== 'ignored',
    shape: 'exact',
    scope: scope.verdict,
    results: read.raw.length,
    latencyMs,
    message: `${read.raw.length} result(s) in the exact shape; ${scope.detail}`,
  };
}
