// Maps one write attempt to a RememberResult (docs/contracts.md, "Outcome mapping"). The bias is
// deliberate: anything short of a definitive rejection is `unknown`, because the provider may have
// stored the memory and the model must not retry it blindly.

import type { WriteResponseKind } from '../../contracts/mem0-presets.js';
import { isProviderRequestError } from '../../http/request-error.js';
import { isPlainObject } from '../../text/json.js';
import type { RememberResult } from '../types.js';

/** Statuses that prove the provider refused the write. */
const DEFINITIVE_REJECTIONS: ReadonlySet<number> = new Set([400, 401, 403, 404]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** A provider id we are willing to echo: non-blank, ≤ 256 code points, no C0 control or DEL. */
export function isValidProviderId(value: unknown): value is string {
  if (typeof value !== 'string' || value.trim() === '') return false;
  let codePoints = 0;
  for (const char of value) {
    codePoints++;
    if (codePoints > 256) return false;
    const c = char.codePointAt(0)!;
    if (c <= 0x1f || c === 0x7f) return false;
  }
  return true;
}

/** A thrown request: only 400/401/403/404 are `failed`; timeouts, 5xx, redirects… are `unknown`. */
export function outcomeFromError(error: unknown): RememberResult {
  if (isProviderRequestError(error) && error.kind === 'http-status' && error.status !== undefined) {
    if (DEFINITIVE_REJECTIONS.has(error.status)) return { status: 'failed' };
  }
  return { status: 'unknown' };
}

/** A parsed 2xx answer, read according to the preset's write response kind. */
export function outcomeFromResponse(kind: WriteResponseKind, answer: unknown): RememberResult {
  return kind === 'async-status' ? asyncStatusOutcome(answer) : resultsIdOutcome(answer);
}

/** Platform V3: `{"event_id":uuid,"status":"PENDING"}` is the expected, queued success. */
function asyncStatusOutcome(answer: unknown): RememberResult {
  if (!isPlainObject(answer)) return { status: 'unknown' };
  const eventId = answer['event_id'];
  switch (answer['status']) {
    case 'FAILED':
      return { status: 'failed' };
    case 'PENDING':
      // Queued is never reported as stored.
      return isUuid(eventId) ? { status: 'accepted', providerOperationId: eventId } : { status: 'unknown' };
    case 'SUCCEEDED':
      if (eventId === undefined) return { status: 'stored' };
      return isUuid(eventId) ? { status: 'stored', providerOperationId: eventId } : { status: 'unknown' };
    default:
      return { status: 'unknown' };
  }
}

/** OSS / PolarDB / mem0-v2: the first result item carrying a valid id proves a synchronous store. */
function resultsIdOutcome(answer: unknown): RememberResult {
  if (!isPlainObject(answer) || !Array.isArray(answer['results'])) return { status: 'unknown' };
  for (const item of answer['results']) {
    if (isPlainObject(item) && isValidProviderId(item['id']))
      return { status: 'stored', providerOperationId: item['id'] };
  }
  return { status: 'unknown' };
}
