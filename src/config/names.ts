// Credential-name rules, free of zod so the hook's hot path can use them without loading a schema.
import type { ProviderConfig } from './schema.js';

/** `^[A-Za-z_][A-Za-z0-9_]*$`: an environment variable name, never a value. */
export const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment variable a provider block names for its one credential. */
export function credentialVariable(provider: ProviderConfig): string {
  switch (provider.type) {
    case 'generic-http-search-v1':
      return provider.tokenEnv;
    case 'mem0-platform-v3':
      return provider.apiKeyEnv;
    case 'mem0':
      return provider.credentialEnv;
    case 'dataworks-bff-memory-v1':
      return provider.tokenEnv;
  }
}
