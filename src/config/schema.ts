// The runtime provider config (QWEN_EXTERNAL_CONTEXT_CONFIG) as zod/mini schemas: the one truth for
// its types, validation and (through the deployment manifest) the generated JSON Schema.
// zod/mini keeps the hook bundles small; every object is strict at every level.

import * as z from 'zod/mini';
import { AUTO_RECALL_TIMEOUT_MS, PROVIDER_TIMEOUT_MS } from '../base/limits.js';
import { MEM0_PRESET_NAMES } from '../contracts/mem0-presets.js';
import { CREDENTIAL_NAME } from './names.js';
import { isEndpointOrigin, isOrigin, isScopeLength, isValidBasePath, trimmed } from './rules.js';

const credentialName = z.string().check(z.regex(CREDENTIAL_NAME));

/**
 * Trimmed, then 1–256 UTF-16 units: upstream's length (string `length`, not code points). A refine,
 * not maxLength: JSON Schema's maxLength would publish a code-point bound.
 */
const scopeString = z.string().check(z.overwrite(trimmed), z.refine(isScopeLength));

const timeoutMs = (bounds: { default: number; max: number }) =>
  z._default(z.int().check(z.gte(1), z.lte(bounds.max)), bounds.default);

// Descriptions (z.describe) are for the published JSON Schema: editors show them while completing.
export const genericHttpProviderSchema = z
  .strictObject({
    type: z
      .literal('generic-http-search-v1')
      .check(z.describe('A knowledge base speaking Generic HTTP Search v1')),
    // Origin only, https (or loopback http): see docs/contracts.md, "HTTP client rules".
    baseUrl: z
      .string()
      .check(
        z.refine(isOrigin),
        z.describe(
          'Origin of the search service (scheme, host, port; no path): https://, or http:// on loopback only',
        ),
      ),
    tokenEnv: credentialName.check(
      z.describe(
        'Variable holding the bearer token (sent as Authorization: Bearer); route it under "credentials"',
      ),
    ),
  })
  .check(z.describe('Generic HTTP Search v1: POST <baseUrl>/v1/context/search with a bearer token'));

export const dataworksBffProviderSchema = z
  .strictObject({
    type: z
      .literal('dataworks-bff-memory-v1')
      .check(z.describe('A memory service behind the DataWorks BFF (DMAI Mem0 memories API, v1)')),
    baseUrl: z
      .string()
      .check(
        z.refine(isOrigin),
        z.describe(
          'Origin of the BFF (scheme, host, port; no path): https://, or http:// on loopback only; requests go to /dmai/mem0MemoriesSearch and /dmai/mem0MemoriesAdd',
        ),
      ),
    tokenEnv: credentialName.check(
      z.describe(
        'Variable holding the BFF token (sent as Authorization: Bearer); route it under "credentials"',
      ),
    ),
  })
  .check(
    z.describe(
      'DataWorks BFF memory v1: search and direct-import write with a bearer token; the BFF scopes by the token',
    ),
  );

export const mem0PlatformV3ProviderSchema = z
  .strictObject({
    type: z.literal('mem0-platform-v3').check(z.describe('Mem0 Platform at https://api.mem0.ai (v3 API)')),
    apiKeyEnv: credentialName.check(
      z.describe(
        'Variable holding the Mem0 API key (sent as Authorization: Token); route it under "credentials"',
      ),
    ),
    appId: scopeString.check(z.describe('The Mem0 app_id every search (and write) is scoped to')),
  })
  .check(z.describe('Mem0 Platform, one app_id scope; the same as preset "mem0-platform-v3"'));

export const mem0EndpointSchema = z
  .strictObject({
    origin: z
      .string()
      .check(
        z.describe('Origin of the Mem0 service (scheme, host, port; no path), e.g. https://mem0.example.com'),
      ),
    basePath: z
      ._default(z.string().check(z.refine(isValidBasePath)), '')
      .check(z.describe('Static prefix before the preset\'s paths, e.g. "/mem0"; default ""')),
    allowInsecureHttp: z
      .optional(z.boolean())
      .check(
        z.describe(
          'true allows http:// to a host other than loopback (an intranet service): the credential then crosses the network unencrypted, and verify warns',
        ),
      ),
  })
  .check(z.refine(isEndpointOrigin, { path: ['origin'] }), z.describe('Where the Mem0 service listens'));

export const mem0ScopeSchema = z
  .strictObject({
    userId: z
      .optional(scopeString)
      .check(z.describe('user_id; required by the OSS, PolarDB and mem0-v2 presets')),
    agentId: z
      .optional(scopeString)
      .check(z.describe('agent_id; optional for the OSS, PolarDB and mem0-v2 presets')),
    appId: z
      .optional(scopeString)
      .check(z.describe('app_id; required by the mem0-platform-v3/mem0-v3 presets')),
  })
  .check(
    z.describe(
      'The memory scope: exactly the keys the preset requires, plus only the optional ones it uses (docs/admin.md lists them per preset)',
    ),
  );

export const mem0ProviderSchema = z
  .strictObject({
    type: z.literal('mem0').check(z.describe('A Mem0 service spoken to through one of the presets')),
    preset: z
      .enum(MEM0_PRESET_NAMES)
      .check(
        z.describe('The wire contract: paths, auth header and scope keys (docs/admin.md lists every preset)'),
      ),
    endpoint: mem0EndpointSchema,
    credentialEnv: credentialName.check(
      z.describe('Variable holding the credential (header set by the preset); route it under "credentials"'),
    ),
    scope: mem0ScopeSchema,
  })
  .check(z.describe('Mem0 through a preset'));

export const providerSchema = z
  .discriminatedUnion('type', [
    genericHttpProviderSchema,
    mem0PlatformV3ProviderSchema,
    mem0ProviderSchema,
    dataworksBffProviderSchema,
  ])
  .check(
    z.describe('Where the profile searches (and, for write, stores): a provider block chosen by "type"'),
  );

/** `write` must be exactly `{"enabled": true}`. */
export const writeSchema = z.strictObject({ enabled: z.literal(true) });

export const runtimeConfigV1Schema = z.strictObject({
  version: z.literal(1),
  timeoutMs: timeoutMs(PROVIDER_TIMEOUT_MS),
  provider: providerSchema,
  write: z.optional(writeSchema),
});

export const autoRecallSchema = z.strictObject({
  repositoryRoot: z.string(),
  timeoutMs: timeoutMs(AUTO_RECALL_TIMEOUT_MS),
});

export const runtimeConfigV2Schema = z.strictObject({
  version: z.literal(2),
  // Accepted for upstream compatibility; nothing reads it.
  timeoutMs: timeoutMs(PROVIDER_TIMEOUT_MS),
  autoRecall: autoRecallSchema,
  provider: providerSchema,
});

export const runtimeConfigSchema = z.discriminatedUnion('version', [
  runtimeConfigV1Schema,
  runtimeConfigV2Schema,
]);

export type GenericHttpProviderConfig = z.infer<typeof genericHttpProviderSchema>;
export type DataworksBffProviderConfig = z.infer<typeof dataworksBffProviderSchema>;
export type Mem0PlatformV3ProviderConfig = z.infer<typeof mem0PlatformV3ProviderSchema>;
export type Mem0ProviderConfig = z.infer<typeof mem0ProviderSchema>;
export type Mem0Scope = z.infer<typeof mem0ScopeSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type RuntimeConfigV1 = z.infer<typeof runtimeConfigV1Schema>;
export type RuntimeConfigV2 = z.infer<typeof runtimeConfigV2Schema>;
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;
