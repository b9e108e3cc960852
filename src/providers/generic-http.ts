// Generic HTTP Search v1: POST {baseUrl}/v1/context/search with a Bearer token. Search only: this
// provider never writes.

import { MAX_ITEMS } from '../base/limits.js';
import { ProviderRequestError } from '../http/request-error.js';
import { isPlainObject, type JsonObject } from '../text/json.js';
import { normaliseItems } from './items.js';
import { jsonPost } from './request.js';
import type { ContextItem, CredentialPlacement, ProviderContract } from './types.js';

export const GENERIC_SEARCH_PATH = '/v1/context/search';
export const GENERIC_CONTRACT = 'generic-http-search-v1';

/** The one credential header of the contract. */
const BEARER: CredentialPlacement = { header: 'authorization', prefix: 'Bearer ' };

/** The answer's `items` list; any other shape fails the search. */
function genericResults(answer: unknown): unknown[] {
  if (!isPlainObject(answer) || !Array.isArray(answer['items']))
    throw new ProviderRequestError('invalid-response');
  return answer['items'];
}

function genericContent(item: JsonObject): string | undefined {
  const content = item['content'];
  return typeof content === 'string' ? content : undefined;
}

/** The contract at a validated origin (checkOrigin().origin). */
export function genericHttpContract(origin: string): ProviderContract {
  const endpoint = { origin, basePath: '', credential: BEARER };
  return {
    name: GENERIC_CONTRACT,
    search: {
      // The wire contract fixes the limit at 5 whatever the caller asked for.
      request: (query) => jsonPost('search', endpoint, GENERIC_SEARCH_PATH, { query, limit: MAX_ITEMS }),
      answerShape: '{"items": [...]}',
      results: genericResults,
      content: genericContent,
      contentFields: ['content'],
      idFields: ['id'],
      scope: {},
    },
  };
}

/** `{"items":[...]}` → normalised items; any other shape fails the search. */
export function parseGenericSearchResponse(answer: unknown, limit: number): ContextItem[] {
  return normaliseItems(genericResults(answer), limit, genericContent);
}
