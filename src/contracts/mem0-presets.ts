// The Mem0 presets as data: one contract (src/providers/mem0/preset-contract.ts) reads this table.
// Published identifiers never change meaning; an incompatible upstream change gets a new identifier.

export type ScopeKey = 'userId' | 'agentId' | 'appId';
export type AuthScheme = 'token' | 'x-api-key' | 'bearer';
/** Where a scope field goes: inside a `filters` object created on demand, or at the body root. */
export type Placement = 'filters' | 'body';
export type WriteResponseKind = 'async-status' | 'results-id';

export interface PresetSpec {
  auth: AuthScheme;
  searchPath: string;
  limitField: 'top_k' | 'limit';
  /** Fixed options appended after the limit field, in this order. */
  fixedSearchOptions: Readonly<Record<string, unknown>>;
  /** Scope keys in wire order, with their search and write placement. */
  scope: ReadonlyArray<{ key: ScopeKey; search: Placement; write: Placement }>;
  required: readonly ScopeKey[];
  optional: readonly ScopeKey[];
  contentFields: readonly string[];
  /** Only `mem0-v2` unwraps a single-user-message direct import (items marked `infer: false`). */
  decodeDirectImport: boolean;
  write?: { path: string; response: WriteResponseKind };
}

const platformV3: PresetSpec = {
  auth: 'token',
  searchPath: '/v3/memories/search/',
  limitField: 'top_k',
  fixedSearchOptions: { threshold: 0.1, rerank: false },
  scope: [{ key: 'appId', search: 'filters', write: 'body' }],
  required: ['appId'],
  optional: [],
  contentFields: ['memory'],
  decodeDirectImport: false,
  write: { path: '/v3/memories/add/', response: 'async-status' },
};

const ossRest: PresetSpec = {
  auth: 'x-api-key',
  searchPath: '/search',
  limitField: 'top_k',
  fixedSearchOptions: {},
  scope: [
    { key: 'userId', search: 'filters', write: 'body' },
    { key: 'agentId', search: 'filters', write: 'body' },
  ],
  required: ['userId'],
  optional: ['agentId'],
  contentFields: ['memory', 'content'],
  decodeDirectImport: false,
  write: { path: '/memories', response: 'results-id' },
};

const polardb: PresetSpec = {
  auth: 'token',
  searchPath: '/v2/memories/search',
  limitField: 'top_k',
  fixedSearchOptions: {},
  // PolarDB reads agent_id at the search body root, not inside filters.
  scope: [
    { key: 'userId', search: 'filters', write: 'body' },
    { key: 'agentId', search: 'body', write: 'body' },
  ],
  required: ['userId'],
  optional: ['agentId'],
  contentFields: ['memory'],
  decodeDirectImport: false,
  write: { path: '/v1/memories', response: 'results-id' },
};

export const MEM0_PRESETS = {
  'mem0-platform-v3': platformV3,
  'mem0-v3': platformV3,
  'mem0-oss-rest-2026-08': ossRest,
  'mem0-oss-2026-08': ossRest,
  'aliyun-polardb-mysql-2026-08': polardb,
  'mem0-v2': { ...polardb, limitField: 'limit', decodeDirectImport: true },
} as const satisfies Record<string, PresetSpec>;

export type Mem0PresetName = keyof typeof MEM0_PRESETS;
export const MEM0_PRESET_NAMES = Object.keys(MEM0_PRESETS) as [Mem0PresetName, ...Mem0PresetName[]];

export const SCOPE_KEYS: readonly ScopeKey[] = ['userId', 'agentId', 'appId'];

/**
 * The first scope key that breaks the preset's rules — a required key that is missing, then a key
 * the preset does not use (it would be silently dropped on the wire) — or undefined.
 */
export function scopeViolation(
  preset: PresetSpec,
  scope: Readonly<Partial<Record<ScopeKey, string>>>,
): ScopeKey | undefined {
  for (const key of preset.required) if (scope[key] === undefined) return key;
  for (const key of SCOPE_KEYS) {
    if (scope[key] !== undefined && !preset.required.includes(key) && !preset.optional.includes(key))
      return key;
  }
  return undefined;
}

/** Scope names on the wire. */
export const SCOPE_WIRE_NAME: Readonly<Record<ScopeKey, string>> = {
  userId: 'user_id',
  agentId: 'agent_id',
  appId: 'app_id',
};

/** The legacy `mem0-platform-v3` provider block behaves exactly like this preset. */
export const PLATFORM_V3_ORIGIN = 'https://api.mem0.ai';
