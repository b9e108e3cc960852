// The runtime provider config loader with the zod schema as its schema step: used by the MCP
// server, render, verify and rollback. (The auto-recall hook uses load-core.ts with the validator
// generated from this schema, proven equal to it by test/unit/startup/validators.test.ts.)
import type { Environment } from '../base/environment.js';
import {
  type ConfigFs,
  type ConfigParser,
  type LoadedConfig,
  loadRuntimeConfigWith,
  parseRuntimeConfigWith,
} from './load-core.js';
import { type RuntimeConfigV1, type RuntimeConfigV2, runtimeConfigSchema } from './schema.js';

export const zodConfigParser: ConfigParser = (json) => {
  const parsed = runtimeConfigSchema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map(({ code, path }) => ({ code, path: path as (string | number)[] })),
  };
};

export function loadRuntimeConfig(env: Environment, version: 1, fs?: ConfigFs): LoadedConfig<RuntimeConfigV1>;
export function loadRuntimeConfig(env: Environment, version: 2, fs?: ConfigFs): LoadedConfig<RuntimeConfigV2>;
export function loadRuntimeConfig(
  env: Environment,
  version: 1 | 2,
  fs?: ConfigFs,
): LoadedConfig<RuntimeConfigV1 | RuntimeConfigV2> {
  return version === 1
    ? loadRuntimeConfigWith(zodConfigParser, env, 1, fs)
    : loadRuntimeConfigWith(zodConfigParser, env, 2, fs);
}

/** Schema, version, Mem0 scope and write rules: everything decidable before a credential is read. */
export function parseRuntimeConfig(text: string, version: 1): RuntimeConfigV1;
export function parseRuntimeConfig(text: string, version: 2): RuntimeConfigV2;
export function parseRuntimeConfig(text: string, version: 1 | 2): RuntimeConfigV1 | RuntimeConfigV2;
export function parseRuntimeConfig(text: string, version: 1 | 2): RuntimeConfigV1 | RuntimeConfigV2 {
  return parseRuntimeConfigWith(zodConfigParser, text, version);
}
