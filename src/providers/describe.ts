// The one description of a provider config: what it sends and how its answers read, one entry per
// provider type. The engine (factory.ts) sends exactly these requests, `qwen-managed probe` sends
// the search one, and providerRoutes() lists their pinned (method, origin, path, credential header).
// Validation is repeated here (cheaply) so that no code path can describe a request to an unchecked
// URL or without its scope.
import { ConfigurationError } from '../base/errors.js';
import { MAX_ITEMS } from '../base/limits.js';
import { checkOrigin, isValidBasePath } from '../base/origin.js';
import type { Mem0Scope, ProviderConfig } from '../config/schema.js';
import {
  MEM0_PRESETS,
  PLATFORM_V3_ORIGIN,
  type PresetSpec,
  SCOPE_KEYS,
  type ScopeKey,
  scopeViolation,
} from '../contracts/mem0-presets.js';
import { dataworksBffContract } from './dataworks-bff.js';
import { genericHttpContract } from './generic-http.js';
import { type Mem0ScopeValues, mem0Contract } from './mem0/preset-contract.js';
import type { ProviderContract, ProviderRequest, ProviderRoute } from './types.js';

export interface DescribeOptions {
  /** Test hook: replaces https://api.mem0.ai for the legacy `mem0-platform-v3` block. Not in config. */
  platformOrigin?: string;
}

type ConfigOf<T extends ProviderConfig['type']> = Extract<ProviderConfig, { type: T }>;

/** One entry per provider `type`: a new provider is one more entry (and its contract file). */
const CONTRACTS: {
  [T in ProviderConfig['type']]: (config: ConfigOf<T>, options: DescribeOptions) => ProviderContract;
} = {
  'generic-http-search-v1': (config) => genericHttpContract(validOrigin(config.baseUrl, false)),
  'dataworks-bff-memory-v1': (config) => dataworksBffContract(validOrigin(config.baseUrl, false)),
  // The legacy block is exactly the `mem0-platform-v3` preset at Mem0's fixed origin.
  'mem0-platform-v3': (config, options) => {
    const preset = MEM0_PRESETS['mem0-platform-v3'];
    return mem0Contract({
      name: 'mem0-platform-v3',
      preset,
      origin: validOrigin(options.platformOrigin ?? PLATFORM_V3_ORIGIN, false),
      basePath: '',
      scope: presetScope(preset, { appId: config.appId }),
    });
  },
  mem0: (config) => {
    // Own keys only: `toString` or `__proto__` must never select an inherited "preset".
    if (!Object.hasOwn(MEM0_PRESETS, config.preset)) throw new ConfigurationError('schema-invalid');
    const preset: PresetSpec = MEM0_PRESETS[config.preset];
    const { origin, basePath, allowInsecureHttp } = config.endpoint;
    if (!isValidBasePath(basePath)) throw new ConfigurationError('schema-invalid');
    return mem0Contract({
      name: config.preset,
      preset,
      origin: validOrigin(origin, allowInsecureHttp === true),
      basePath,
      scope: presetScope(preset, config.scope),
    });
  },
};

/** The provider's wire contract; throws ConfigurationError for a block no request may go out for. */
export function describeProvider(config: ProviderConfig, options: DescribeOptions = {}): ProviderContract {
  // Own keys only, like the preset table: an unchecked `type` must never select an inherited entry.
  if (!Object.hasOwn(CONTRACTS, config.type)) throw new ConfigurationError('schema-invalid');
  const build = CONTRACTS[config.type] as (
    config: ProviderConfig,
    options: DescribeOptions,
  ) => ProviderContract;
  return build(config, options);
}

/**
 * Every request the provider can make, without a body: search, then the write where the provider
 * writes. Built by the same functions the engine sends with, so a route can never differ from a request.
 */
export function providerRoutes(config: ProviderConfig, options: DescribeOptions = {}): ProviderRoute[] {
  const contract = describeProvider(config, options);
  const requests: ProviderRequest[] = [contract.search.request('', MAX_ITEMS)];
  if (contract.remember !== undefined) requests.push(contract.remember.request(''));
  return requests.map(({ operation, method, origin, path, credential }) => ({
    operation,
    method,
    origin,
    path,
    credential,
  }));
}

function validOrigin(raw: string, allowInsecureHttp: boolean): string {
  const checked = checkOrigin(raw, { allowInsecureHttp });
  if (!checked.ok) throw new ConfigurationError('schema-invalid');
  return checked.origin;
}

/** Required keys present, unused keys absent: a request must never go out with the wrong scope. */
function presetScope(preset: PresetSpec, scope: Mem0Scope): Mem0ScopeValues {
  if (scopeViolation(preset, scope) !== undefined) throw new ConfigurationError('scope-invalid');
  const values: Partial<Record<ScopeKey, string>> = {};
  for (const key of SCOPE_KEYS) if (scope[key] !== undefined) values[key] = scope[key];
  return values;
}
