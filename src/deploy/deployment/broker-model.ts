// What a deployment's `broker` block implies for the documents render writes and the rules validate
// applies: the listeners' ports, the model's auth block and client, the provider block a runtime gets
// behind the broker. Pure; render/broker.ts builds broker.json from it.
import type { ProviderConfig } from '../../config/schema.js';
import { brokerOrigin, DEFAULT_BROKER_PORTS, type ListenerName } from '../../contracts/broker.js';
import { type ModelClientFact, pinnedQwenFacts } from '../../qwen/versions.js';
import { isPlainObject } from '../../text/json.js';
import type { Deployment } from './schema.js';

/** The provider block the runtime gets: the same contract, its origin the broker's listener. */
export function brokeredProvider(provider: ProviderConfig, port: number): ProviderConfig {
  const origin = brokerOrigin(port);
  switch (provider.type) {
    case 'generic-http-search-v1':
    case 'dataworks-bff-memory-v1':
      return { ...provider, baseUrl: origin };
    case 'mem0-platform-v3':
      // The legacy block's origin is fixed to Mem0's; the preset form is the same contract at any origin.
      return {
        type: 'mem0',
        preset: 'mem0-platform-v3',
        endpoint: { origin, basePath: '' },
        credentialEnv: provider.apiKeyEnv,
        scope: { appId: provider.appId },
      };
    case 'mem0':
      return { ...provider, endpoint: { origin, basePath: provider.endpoint.basePath } };
  }
}

/** `security.auth` of deployment.json `settings`, as far as the broker needs it. */
export function modelAuth(deployment: Deployment): {
  selectedType?: unknown;
  baseUrl?: unknown;
  apiKey?: unknown;
} {
  const security = deployment.settings?.['security'];
  const auth = isPlainObject(security) ? security['auth'] : undefined;
  return isPlainObject(auth) ? auth : {};
}

/**
 * The model clients the pinned Qwen builds, by `security.auth.selectedType`: a per-version fact, read
 * through the pinned package's version (`qwenVersion`, where render or verify read it; the default
 * version's without it).
 */
export function modelClients(qwenVersion: string | undefined): Readonly<Record<string, ModelClientFact>> {
  return pinnedQwenFacts(qwenVersion).modelClients;
}

/** The model client of the selected auth type in the pinned Qwen, when the broker can front it. */
export function modelClient(
  deployment: Deployment,
  qwenVersion: string | undefined,
): ModelClientFact | undefined {
  const { selectedType } = modelAuth(deployment);
  const clients = modelClients(qwenVersion);
  return typeof selectedType === 'string' && Object.hasOwn(clients, selectedType)
    ? clients[selectedType]
    : undefined;
}

/** The model key credential the broker holds, when deployment.json routes one. */
export function modelKeyCredential(
  deployment: Deployment,
  qwenVersion: string | undefined,
): string | undefined {
  const client = modelClient(deployment, qwenVersion);
  return client !== undefined && Object.hasOwn(deployment.credentials, client.keyVariable)
    ? client.keyVariable
    : undefined;
}

/** The model's real base URL split into the origin and the path prefix every route sits under. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string } | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username !== '' || url.password !== '')
    return undefined;
  if (url.search !== '' || url.hash !== '') return undefined;
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
}

export function brokerPort(deployment: Deployment, name: ListenerName): number {
  return deployment.broker?.ports[name] ?? DEFAULT_BROKER_PORTS[name];
}

/** Characters systemd would read as quoting, specifiers or word breaks in the drop-in's values. */
export const SYSTEMD_UNSAFE = /[\s%"'\\;]/;
