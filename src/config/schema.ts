// The runtime provider config (QWEN_EXTERNAL_CONTEXT_CONFIG) as zod/mini schemas: the one truth for
// its types, validation and (through the deployment manifest) the generated JSON Schema.
// zod/mini keeps the hook bundles small; every object is strict at every level.

import * as z from 'zod/mini';
import { AUTO_RECALL_TIMEOUT_MS, PROVIDER_TIMEOUT_MS } from '../base/limits.js';
import { MEM0_PRESET_NAMES } from '../contracts/mem0-presets.js';
import { CREDENTIAL_NAME } from './names.js';
import { isEndpointOrigin, isOrigin, isScopeLength, isValidBasePath, trimmed } from './rules.js';

export { CREDENTIAL_NAME, credentialVariable } from './names.js';

const credentialName = z.string().check(z.regex(CREDENTIAL_NAME));

/**
 * Trimmed, then 1–256 UTF-16 units: upstream's length (string `length`, not code points). A refine,
 * not maxLength: JSON Schema's maxLength would publish a code-point bound.
 */
const scopeString = z.string().check(z.overwrite(trimmed), z.refine(isScopeLength));

const timeoutMs = (bounds: { default: number; max: number }) =>
  z._default(z.int().check(z.gte(1), z.lte(bounds.max)), bounds.default);

export const genericHttpProviderSchema = z.strictObject({
  type: z.literal('generic-http-search-v1'),
  // Origin only, https (or loopback http): see providers.md.
  baseUrl: z.string().check(z.refine(isOrigin)),
  tokenEnv: credentialName,
});

export const mem0PlatformV3ProviderSchema = z.strictObject({
  type: z.literal('mem0-platform-v3'),
  apiKeyEnv: credentialName,
  appId: scopeString,
});

export const mem0EndpointSchema = z
  .strictObject({
    origin: z.string(),
    basePath: z._default(z.string().check(z.refine(isValidBasePath)), ''),
    allowInsecureHttp: z.optional(z.boolean()),
  })
  .check(z.refine(isEndpointOrigin, { path: ['origin'] }));

export const mem0ScopeSchema = z.strictObject({
  userId: z.optional(scopeString),
  agentId: z.optional(scopeString),
  appId: z.optional(scopeString),
});

export const mem0ProviderSchema = z.strictObject({
  type: z.literal('mem0'),
  preset: z.enum(MEM0_PRESET_NAMES),
  endpoint: mem0EndpointSchema,
  credentialEnv: credentialName,
  scope: mem0ScopeSchema,
});

export const providerSchema = z.discriminatedUnion('type', [
  genericHttpProviderSchema,
  mem0PlatformV3ProviderSchema,
  mem0ProviderSchema,
]);

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
export type Mem0PlatformV3ProviderConfig = z.infer<typeof mem0PlatformV3ProviderSchema>;
export type Mem0ProviderConfig = z.infer<typeof mem0ProviderSchema>;
export type Mem0Scope = z.infer<typeof mem0ScopeSchema>;
export type ProviderConfig = z.infer<typeof providerSchema>;
export type RuntimeConfigV1 = z.infer<typeof runtimeConfigV1Schema>;
export type RuntimeConfigV2 = z.infer<typeof runtimeConfigV2Schema>;
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;
