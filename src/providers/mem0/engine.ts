// The ONE Mem0 engine. Everything preset-specific (auth, paths, limit field, options, scope
// placement, content fields, decoding, write kind) comes from the PresetSpec table in src/contracts/mem0-presets.ts.

import { joinUrl } from '../../base/origin.js';
import {
  type AuthScheme,
  type Placement,
  type PresetSpec,
  SCOPE_WIRE_NAME,
  type ScopeKey,
} from '../../contracts/mem0-presets.js';
import { type CredentialHeader, postJson } from '../../http/client.js';
import { ProviderRequestError } from '../../http/errors.js';
import type { Transport } from '../../http/transport.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { clampLimit, normaliseItems } from '../items.js';
import type {
  ContextItem,
  MemoryWriter,
  Provider,
  RememberRequest,
  RememberResult,
  SearchRequest,
} from '../types.js';
import { decodeDirectImport } from './direct-import.js';
import { outcomeFromError, outcomeFromResponse } from './write-outcome.js';

export type Mem0ScopeValues = Readonly<Partial<Record<ScopeKey, string>>>;

export interface Mem0EngineOptions {
  preset: PresetSpec;
  /** A validated origin (checkOrigin().origin). */
  origin: string;
  /** A validated basePath (isValidBasePath); a trailing `/` is dropped when joining. */
  basePath: string;
  scope: Mem0ScopeValues;
  credential: string;
  transport: Transport;
}

/** The single credential header a preset sends. */
export function credentialHeader(auth: AuthScheme, credential: string): CredentialHeader {
  switch (auth) {
    case 'token':
      return { name: 'authorization', value: `Token ${credential}` };
    case 'bearer':
      return { name: 'authorization', value: `Bearer ${credential}` };
    case 'x-api-key':
      return { name: 'x-api-key', value: credential };
  }
}

/** Adds the preset's scope fields, in table order, at root or in a `filters` object made on demand. */
function placeScope(
  body: JsonObject,
  preset: PresetSpec,
  scope: Mem0ScopeValues,
  placementOf: (entry: PresetSpec['scope'][number]) => Placement,
): void {
  for (const entry of preset.scope) {
    const value = scope[entry.key];
    if (value === undefined) continue;
    const wireName = SCOPE_WIRE_NAME[entry.key];
    if (placementOf(entry) === 'body') {
      body[wireName] = value;
    } else {
      if (!isPlainObject(body['filters'])) body['filters'] = {};
      (body['filters'] as JsonObject)[wireName] = value;
    }
  }
}

/** Search body: query, limit field, fixed options, then scope (key order is the wire order). */
export function buildSearchBody(
  preset: PresetSpec,
  scope: Mem0ScopeValues,
  query: string,
  limit: number,
): JsonObject {
  const body: JsonObject = { query, [preset.limitField]: clampLimit(limit) };
  for (const [name, value] of Object.entries(preset.fixedSearchOptions)) body[name] = value;
  placeScope(body, preset, scope, (entry) => entry.search);
  return body;
}

/** Write body: the exact content as one user message, Direct Import (`infer: false`), then scope. */
export function buildWriteBody(preset: PresetSpec, scope: Mem0ScopeValues, content: string): JsonObject {
  const body: JsonObject = { messages: [{ role: 'user', content }], infer: false };
  placeScope(body, preset, scope, (entry) => entry.write);
  return body;
}

/** `{"results":[...]}` → normalised items; any other shape fails the search. */
export function parseMem0SearchResponse(preset: PresetSpec, answer: unknown, limit: number): ContextItem[] {
  if (!isPlainObject(answer) || !Array.isArray(answer['results']))
    throw new ProviderRequestError('invalid-response');
  return normaliseItems(answer['results'], limit, (item) => {
    for (const field of preset.contentFields) {
      const value = item[field];
      if (typeof value === 'string' && value !== '') {
        return preset.decodeDirectImport ? decodeDirectImport(item, value) : value;
      }
    }
    return undefined;
  });
}

export function createMem0Provider(options: Mem0EngineOptions): Provider {
  const { preset, scope, transport } = options;
  const credential = credentialHeader(preset.auth, options.credential);
  const searchUrl = joinUrl(options.origin, options.basePath, preset.searchPath);
  const provider: Provider = {
    async search(request: SearchRequest): Promise<ContextItem[]> {
      const answer = await postJson(transport, {
        url: searchUrl,
        credential,
        body: buildSearchBody(preset, scope, request.query, request.limit),
        signal: request.signal,
      });
      return parseMem0SearchResponse(preset, answer, request.limit);
    },
  };
  const write = preset.write;
  if (write !== undefined) {
    const writeUrl = joinUrl(options.origin, options.basePath, write.path);
    const writer: MemoryWriter = {
      // Exactly one request: no retry, no event polling, no dedup search. Never throws.
      async remember(request: RememberRequest): Promise<RememberResult> {
        let answer: unknown;
        try {
          answer = await postJson(transport, {
            url: writeUrl,
            credential,
            body: buildWriteBody(preset, scope, request.content),
            signal: request.signal,
          });
        } catch (error) {
          return outcomeFromError(error);
        }
        return outcomeFromResponse(write.response, answer);
      },
    };
    provider.writer = writer;
  }
  return provider;
}
