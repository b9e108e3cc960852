// Builds the one provider a runtime uses from a validated provider block. Validation is repeated
// here (cheaply) so that no code path can send a request to an unchecked URL or without its scope.
import { ConfigurationError } from '../base/errors.js';
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
import type { Transport } from '../http/transport.js';
import { createDataworksBffProvider } from './dataworks-bff.js';
import { createGenericHttpProvider } from './generic-http.js';
import { createMem0Provider, type Mem0ScopeValues } from './mem0/engine.js';
import type { Provider } from './types.js';

export interface ProviderFactoryOptions {
  transport: Transport;
  /** Test hook: replaces https://api.mem0.ai for the legacy `mem0-platform-v3` block. Not in config. */
  platformOrigin?: string;
}

export function createProvider(
  config: ProviderConfig,
  credential: string,
  options: ProviderFactoryOptions,
): Provider {
  switch (config.type) {
    case 'generic-http-search-v1':
      return createGenericHttpProvider({
        origin: validOrigin(config.baseUrl, false),
        token: credential,
        transport: options.transport,
      });
    case 'dataworks-bff-memory-v1':
      return createDataworksBffProvider({
        origin: validOrigin(config.baseUrl, false),
        token: credential,
        transport: options.transport,
      });
    case 'mem0-platform-v3':
      // The legacy block is exactly the `mem0-platform-v3` preset at Mem0's fixed origin.
      return createMem0Provider({
        preset: MEM0_PRESETS['mem0-platform-v3'],
        origin: validOrigin(options.platformOrigin ?? PLATFORM_V3_ORIGIN, false),
        basePath: '',
        scope: presetScope(MEM0_PRESETS['mem0-platform-v3'], { appId: config.appId }),
        credential,
        transport: options.transport,
      });
    case 'mem0': {
      // Own keys only: `toString` or `__proto__` must never select an inherited "preset".
      if (!Object.hasOwn(MEM0_PRESETS, config.preset)) throw new ConfigurationError('schema-invalid');
      const preset: PresetSpec = MEM0_PRESETS[config.preset];
      const { origin, basePath, allowInsecureHttp } = config.endpoint;
      if (!isValidBasePath(basePath)) throw new ConfigurationError('schema-invalid');
      return createMem0Provider({
        preset,
        origin: validOrigin(origin, allowInsecureHttp === true),
        basePath,
        scope: presetScope(preset, config.scope),
        credential,
        transport: options.transport,
      });
    }
  }
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
