// The schema step of schema.ts (runtimeConfigSchema), compiled by hand into plain checks for the
// auto-recall hook: loading and running zod costs more than the rest of a search-path hook start.
// schema.ts stays the definition; test/unit/config/compiled-parser.test.ts proves this parser
// accepts exactly what the zod schema accepts, with the same output, on tables and random inputs.

import { checkOrigin, isValidBasePath } from '../base/origin.js';
import { MEM0_PRESETS } from '../contracts/mem0-presets.js';
import type { ConfigParser } from './load-core.js';
import { CREDENTIAL_NAME } from './names.js';
import type { Mem0Scope, ProviderConfig, RuntimeConfig } from './schema.js';

type Path = (string | number)[];

/** Thrown inside this module only; becomes `{ok: false, keyPath}`. */
class Invalid {
  constructor(readonly keyPath: Path) {}
}

type Json = Record<string, unknown>;

function object(value: unknown, path: Path, keys: readonly string[]): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Invalid(path);
  // Strict at every level: an unknown key (also `__proto__` from JSON) is an error, never ignored.
  for (const key of Object.keys(value)) if (!keys.includes(key)) throw new Invalid(path);
  return value as Json;
}

function string(value: unknown, path: Path): string {
  if (typeof value !== 'string') throw new Invalid(path);
  return value;
}

function int(value: unknown, path: Path, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new Invalid(path);
  }
  return value;
}

function credentialName(value: unknown, path: Path): string {
  const name = string(value, path);
  if (!CREDENTIAL_NAME.test(name)) throw new Invalid(path);
  return name;
}

/** Trimmed, then 1–256 UTF-16 units (upstream's length); the trimmed value is what the config carries. */
function scopeString(value: unknown, path: Path): string {
  const trimmed = string(value, path).trim();
  if (trimmed.length === 0 || trimmed.length > 256) throw new Invalid(path);
  return trimmed;
}

function provider(value: unknown, path: Path): ProviderConfig {
  const type = typeof value === 'object' && value !== null ? (value as Json)['type'] : undefined;
  switch (type) {
    case 'generic-http-search-v1': {
      const p = object(value, path, ['type', 'baseUrl', 'tokenEnv']);
      const baseUrl = string(p['baseUrl'], [...path, 'baseUrl']);
      if (!checkOrigin(baseUrl).ok) throw new Invalid([...path, 'baseUrl']);
      return { type, baseUrl, tokenEnv: credentialName(p['tokenEnv'], [...path, 'tokenEnv']) };
    }
    case 'mem0-platform-v3': {
      const p = object(value, path, ['type', 'apiKeyEnv', 'appId']);
      return {
        type,
        apiKeyEnv: credentialName(p['apiKeyEnv'], [...path, 'apiKeyEnv']),
        appId: scopeString(p['appId'], [...path, 'appId']),
      };
    }
    case 'mem0': {
      const p = object(value, path, ['type', 'preset', 'endpoint', 'credentialEnv', 'scope']);
      const preset = p['preset'];
      // Own keys only: `toString` must never name a preset.
      if (typeof preset !== 'string' || !Object.hasOwn(MEM0_PRESETS, preset))
        throw new Invalid([...path, 'preset']);
      const e = object(p['endpoint'], [...path, 'endpoint'], ['origin', 'basePath', 'allowInsecureHttp']);
      const origin = string(e['origin'], [...path, 'endpoint', 'origin']);
      const basePath =
        e['basePath'] === undefined ? '' : string(e['basePath'], [...path, 'endpoint', 'basePath']);
      if (!isValidBasePath(basePath)) throw new Invalid([...path, 'endpoint', 'basePath']);
      const insecure = e['allowInsecureHttp'];
      if (insecure !== undefined && typeof insecure !== 'boolean') {
        throw new Invalid([...path, 'endpoint', 'allowInsecureHttp']);
      }
      if (!checkOrigin(origin, { allowInsecureHttp: insecure === true }).ok) {
        throw new Invalid([...path, 'endpoint', 'origin']);
      }
      const s = object(p['scope'], [...path, 'scope'], ['userId', 'agentId', 'appId']);
      const scope: Mem0Scope = {};
      for (const key of ['userId', 'agentId', 'appId'] as const) {
        if (s[key] !== undefined) scope[key] = scopeString(s[key], [...path, 'scope', key]);
      }
      return {
        type,
        preset: preset as keyof typeof MEM0_PRESETS,
        endpoint: { origin, basePath, ...(insecure === undefined ? {} : { allowInsecureHttp: insecure }) },
        credentialEnv: credentialName(p['credentialEnv'], [...path, 'credentialEnv']),
        scope,
      };
    }
    default:
      throw new Invalid([...path, 'type']);
  }
}

function config(json: unknown): RuntimeConfig {
  const version = typeof json === 'object' && json !== null ? (json as Json)['version'] : undefined;
  if (version === 1) {
    const c = object(json, [], ['version', 'timeoutMs', 'provider', 'write']);
    const parsed: RuntimeConfig = {
      version,
      timeoutMs: int(c['timeoutMs'], ['timeoutMs'], 5000, 30000),
      provider: provider(c['provider'], ['provider']),
    };
    if (c['write'] !== undefined) {
      const w = object(c['write'], ['write'], ['enabled']);
      // Exactly {"enabled": true}: false or anything else is an error, not "off".
      if (w['enabled'] !== true) throw new Invalid(['write', 'enabled']);
      parsed.write = { enabled: true };
    }
    return parsed;
  }
  if (version === 2) {
    const c = object(json, [], ['version', 'timeoutMs', 'autoRecall', 'provider']);
    const a = object(c['autoRecall'], ['autoRecall'], ['repositoryRoot', 'timeoutMs']);
    return {
      version,
      timeoutMs: int(c['timeoutMs'], ['timeoutMs'], 5000, 30000),
      autoRecall: {
        repositoryRoot: string(a['repositoryRoot'], ['autoRecall', 'repositoryRoot']),
        timeoutMs: int(a['timeoutMs'], ['autoRecall', 'timeoutMs'], 1500, 5000),
      },
      provider: provider(c['provider'], ['provider']),
    };
  }
  throw new Invalid(['version']);
}

export const compiledConfigParser: ConfigParser = (json) => {
  try {
    return { ok: true, config: config(json) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, keyPath: error.keyPath };
    throw error;
  }
};
