// Generic HTTP Search v1: POST {baseUrl}/v1/context/search with a Bearer token. Search only: this
// provider never writes.

import { MAX_ITEMS } from '../base/limits.js';
import { joinUrl } from '../base/origin.js';
import { postJson } from '../http/client.js';
import { ProviderRequestError } from '../http/errors.js';
import type { Transport } from '../http/transport.js';
import { isPlainObject } from '../text/json.js';
import { normaliseItems } from './items.js';
import type { ContextItem, Provider, SearchRequest } from './types.js';

export const GENERIC_SEARCH_PATH = '/v1/context/search';

export interface GenericHttpProviderOptions {
  /** A validated origin (checkOrigin().origin). */
  origin: string;
  token: string;
  transport: Transport;
}

/** The one credential header of the contract. */
export function genericCredentialHeader(token: string): { name: string; value: string } {
  return { name: 'authorization', value: `Bearer ${token}` };
}

/** The search body: the wire contract fixes the limit at 5 whatever the caller asked for. */
export function genericSearchBody(query: string): { query: string; limit: number } {
  return { query, limit: MAX_ITEMS };
}

export function createGenericHttpProvider(options: GenericHttpProviderOptions): Provider {
  const url = joinUrl(options.origin, '', GENERIC_SEARCH_PATH);
  const credential = genericCredentialHeader(options.token);
  return {
    async search(request: SearchRequest): Promise<ContextItem[]> {
      const answer = await postJson(options.transport, {
        url,
        credential,
        body: genericSearchBody(request.query),
        signal: request.signal,
      });
      return parseGenericSearchResponse(answer, request.limit);
    },
  };
}

/** `{"items":[...]}` → normalised items; any other shape fails the search. */
export function parseGenericSearchResponse(answer: unknown, limit: number): ContextItem[] {
  if (!isPlainObject(answer) || !Array.isArray(answer['items']))
    throw new ProviderRequestError('invalid-response');
  return normaliseItems(answer['items'], limit, (item) => {
    const content = item['content'];
    return typeof content === 'string' ? content : undefined;
  });
}
