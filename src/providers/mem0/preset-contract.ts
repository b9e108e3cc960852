// The ONE Mem0 contract. Everything preset-specific (auth, paths, limit field, options, scope
// placement, content fields, decoding, write kind) comes from the PresetSpec table in
// src/contracts/mem0-presets.ts; this file turns a preset plus the admin's endpoint and scope into
// the requests and readers of a ProviderContract.

import {
  type AuthScheme,
  type Placement,
  type PresetSpec,
  SCOPE_KEYS,
  SCOPE_WIRE_NAME,
  type ScopeKey,
} from '../../contracts/mem0-presets.js';
import { ProviderRequestError } from '../../http/request-error.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { clampLimit, normaliseItems } from '../items.js';
import { jsonPost } from '../request.js';
import type { ContextItem, CredentialPlacement, ProviderContract } from '../types.js';
import { decodeDirectImport } from './direct-import.js';
import { outcomeFromResponse } from './write-outcome.js';

export type Mem0ScopeValues = Readonly<Partial<Record<ScopeKey, string>>>;

export interface Mem0ContractOptions {
  /** The preset's name, as probe reports it. */
  name: string;
  preset: PresetSpec;
  /** A validated origin (checkOrigin().origin). */
  origin: string;
  /** A validated basePath (isValidBasePath); a trailing `/` is dropped when joining. */
  basePath: string;
  scope: Mem0ScopeValues;
}

/** The single credential header a preset sends. */
export function credentialPlacement(auth: AuthScheme): CredentialPlacement {
  switch (auth) {
    case 'token':
      return { header: 'authorization', prefix: 'Token ' };
    case 'bearer':
      return { header: 'authorization', prefix: 'Bearer ' };
    case 'x-api-key':
      return { header: 'x-api-key', prefix: '' };
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

function mem0Results(answer: unknown): unknown[] {
  if (!isPlainObject(answer) || !Array.isArray(answer['results']))
    throw new ProviderRequestError('invalid-response');
  return answer['results'];
}

function mem0Content(preset: PresetSpec): (item: JsonObject) => string | undefined {
  return (item) => {
    for (const field of preset.contentFields) {
      const value = item[field];
      if (typeof value === 'string' && value !== '') {
        return preset.decodeDirectImport ? decodeDirectImport(item, value) : value;
      }
    }
    return undefined;
  };
}

/** `{"results":[...]}` → normalised items; any other shape fails the search. */
export function parseMem0SearchResponse(preset: PresetSpec, answer: unknown, limit: number): ContextItem[] {
  return normaliseItems(mem0Results(answer), limit, mem0Content(preset));
}

export function mem0Contract(options: Mem0ContractOptions): ProviderContract {
  const { preset, scope } = options;
  const endpoint = {
    origin: options.origin,
    basePath: options.basePath,
    credential: credentialPlacement(preset.auth),
  };
  const wantedScope: Record<string, string> = {};
  for (const key of SCOPE_KEYS) if (scope[key] !== undefined) wantedScope[SCOPE_WIRE_NAME[key]] = scope[key];
  const contract: ProviderContract = {
    name: options.name,
    search: {
      request: (query, limit) =>
        jsonPost('search', endpoint, preset.searchPath, buildSearchBody(preset, scope, query, limit)),
      answerShape: '{"results": [...]}',
      results: mem0Results,
      content: mem0Content(preset),
      contentFields: preset.contentFields,
      idFields: ['id'],
      scope: wantedScope,
    },
  };
  const write = preset.write;
  if (write !== undefined) {
    contract.remember = {
      request: (content) =>
        jsonPost('remember', endpoint, write.path, buildWriteBody(preset, scope, content)),
      outcome: (answer) => outcomeFromResponse(write.response, answer),
    };
  }
  return contract;
}
