// DataWorks BFF memory v1 (`dataworks-bff-memory-v1`): a Mem0 memory service behind the DataWorks
// BFF. Search `POST {baseUrl}/dmai/mem0MemoriesSearch`, direct-import write
// `POST {baseUrl}/dmai/mem0MemoriesAdd`, both with `Authorization: Bearer <token>`; every answer is
// wrapped in a `{"code", "data"}` envelope whose `code` other than 0 or 200 is a rejection. The BFF
// scopes by the token: no scope field crosses the wire. docs/contracts.md has the whole contract.

import { ProviderRequestError } from '../http/request-error.js';
import { isPlainObject, type JsonObject } from '../text/json.js';
import { clampLimit } from './items.js';
import { isValidProviderId } from './mem0/write-outcome.js';
import { jsonPost } from './request.js';
import type { CredentialPlacement, ProviderContract, RememberResult } from './types.js';

export const DATAWORKS_SEARCH_PATH = '/dmai/mem0MemoriesSearch';
export const DATAWORKS_WRITE_PATH = '/dmai/mem0MemoriesAdd';

/** The envelope codes that mean success (the BFF answers 0; some gateways pass HTTP's 200 through). */
const SUCCESS_CODES: ReadonlySet<number> = new Set([0, 200]);
/** Where an item's content may be, in this order: the first non-empty string wins. */
export const DATAWORKS_CONTENT_FIELDS = ['memory', 'text', 'content'] as const;
/** Where an item's id may be, in this order. */
export const DATAWORKS_ID_FIELDS = ['id', 'memory_id'] as const;

export const DATAWORKS_CONTRACT = 'dataworks-bff-memory-v1';

/** Both operations carry the token as a bearer credential. */
const BEARER: CredentialPlacement = { header: 'authorization', prefix: 'Bearer ' };

/** The search body: the query and Mem0's `top_k`, at most 5. */
export function dataworksSearchBody(query: string, limit: number): JsonObject {
  return { query, top_k: clampLimit(limit) };
}

/** The write body: the exact content as one user message, Direct Import (no inference). */
export function dataworksWriteBody(content: string): JsonObject {
  return { messages: [{ role: 'user', content }], infer: false };
}

type Envelope = { kind: 'ok'; data: unknown } | { kind: 'rejected' } | { kind: 'invalid' };

/**
 * `{"code": 0|200, "data": …}` → the data; another numeric code → the BFF's rejection; anything else
 * (no envelope, a code that is not a number) → invalid: a write then stays `unknown`, never `failed`.
 */
export function openEnvelope(answer: unknown): Envelope {
  if (!isPlainObject(answer)) return { kind: 'invalid' };
  const code = answer['code'];
  if (typeof code !== 'number') return { kind: 'invalid' };
  return SUCCESS_CODES.has(code) ? { kind: 'ok', data: answer['data'] } : { kind: 'rejected' };
}

/** The item list inside `data`: the list itself, or Mem0's `{"results": [...]}`. */
function itemList(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (isPlainObject(data) && Array.isArray(data['results'])) return data['results'];
  return undefined;
}

/** An item with its id moved to `id` (from `id`, else `memory_id`), so the shared rules apply. */
function withId(item: unknown): unknown {
  if (!isPlainObject(item)) return item;
  for (const field of DATAWORKS_ID_FIELDS) {
    const id = item[field];
    if (typeof id === 'string' && id !== '') return field === 'id' ? item : { ...item, id };
  }
  return item;
}

/** A search answer's items, ids in `id`; a rejection or another shape fails the search. */
function dataworksResults(answer: unknown): unknown[] {
  const envelope = openEnvelope(answer);
  if (envelope.kind !== 'ok') throw new ProviderRequestError('invalid-response');
  const list = itemList(envelope.data);
  if (list === undefined) throw new ProviderRequestError('invalid-response');
  return list.map(withId);
}

function dataworksContent(item: JsonObject): string | undefined {
  for (const field of DATAWORKS_CONTENT_FIELDS) {
    const value = item[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The id the BFF gave the stored memory: `data` itself, or the first item of its list, that carries one. */
function storedId(data: unknown): string | undefined {
  const candidates = isPlainObject(data) && !Array.isArray(data['results']) ? [data] : (itemList(data) ?? []);
  for (const candidate of candidates) {
    if (!isPlainObject(candidate)) continue;
    for (const field of DATAWORKS_ID_FIELDS) {
      if (isValidProviderId(candidate[field])) return candidate[field] as string;
    }
  }
  return undefined;
}

/**
 * A 2xx write answer (docs/contracts.md, "Outcome mapping"): a success code is a synchronous store
 * (with the memory's id when it sent a valid one); another code is the BFF's definitive rejection;
 * anything that is not the envelope is `unknown` (the memory may have been stored).
 */
export function dataworksWriteOutcome(answer: unknown): RememberResult {
  const envelope = openEnvelope(answer);
  if (envelope.kind === 'rejected') return { status: 'failed' };
  if (envelope.kind === 'invalid') return { status: 'unknown' };
  const id = storedId(envelope.data);
  return id === undefined ? { status: 'stored' } : { status: 'stored', providerOperationId: id };
}

/** The contract at a validated origin (checkOrigin().origin). */
export function dataworksBffContract(origin: string): ProviderContract {
  const endpoint = { origin, basePath: '', credential: BEARER };
  return {
    name: DATAWORKS_CONTRACT,
    search: {
      request: (query, limit) =>
        jsonPost('search', endpoint, DATAWORKS_SEARCH_PATH, dataworksSearchBody(query, limit)),
      answerShape: '{"code": 0, "data": [...]}',
      rejection: (answer) =>
        openEnvelope(answer).kind === 'rejected'
          ? 'the BFF refused the search (its envelope code is neither 0 nor 200: check the token and its rights)'
          : undefined,
      results: dataworksResults,
      content: dataworksContent,
      contentFields: DATAWORKS_CONTENT_FIELDS,
      idFields: DATAWORKS_ID_FIELDS,
      // The BFF scopes by the token: nothing on the wire to check.
      scope: {},
    },
    remember: {
      request: (content) => jsonPost('remember', endpoint, DATAWORKS_WRITE_PATH, dataworksWriteBody(content)),
      outcome: dataworksWriteOutcome,
    },
  };
}
