// With deployment.json `broker`, every credential goes to the broker and nowhere else: render writes
// broker.json (one listener for the model and one per profile, each with its pinned origin, the header
// its credential travels in, the routes derived from the provider's own requests and from the pinned
// Qwen's model client, and a deadline nested below the profile's timeout), points Qwen's model
// baseUrl and every provider origin at the listeners, and gives Qwen and the runtimes a fixed public
// key. Pure: deployment in, documents out.
import { BROKER_BODY_BYTES, brokerUpstreamTimeoutMs } from '../../base/limits.js';
import { credentialVariable } from '../../config/names.js';
import type { ProviderConfig } from '../../config/schema.js';
import {
  BROKER_HOST,
  BROKER_KEY,
  BROKER_UNIT,
  brokerOrigin,
  MODEL_LISTENER,
  PROVIDER_CALLER_HEADERS,
} from '../../contracts/broker.js';
import type { BrokerConfig, BrokerListener } from '../../contracts/broker-config.js';
import type { LaunchPlan, ProfileKind } from '../../contracts/launch-plan.js';
import { providerRoutes } from '../../providers/describe.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import {
  brokerPort,
  modelAuth,
  modelClient,
  modelKeyCredential,
  splitBaseUrl,
} from '../deployment/broker-model.js';
import { deployedKinds } from '../deployment/kinds.js';
import type { Deployment } from '../deployment/schema.js';

interface ProviderUpstream {
  origin: string;
  credential: string;
  header: BrokerListener['header'];
  /** Every request the runtime makes for this profile: search, and the write where the profile writes. */
  routes: BrokerListener['routes'];
}

/**
 * Where a provider's requests go and what they are, for the profile's runtime: the provider's own
 * request description (providerRoutes, the same one its engine sends), so a new provider type needs
 * nothing here. Only the write profile's runtime writes: the others get the search route alone.
 */
export function providerUpstream(provider: ProviderConfig, kind: ProfileKind): ProviderUpstream {
  const routes = providerRoutes(provider).filter((r) => r.operation === 'search' || kind === 'write');
  const first = routes[0]!;
  return {
    origin: first.origin,
    credential: credentialVariable(provider),
    header: { name: first.credential.header, prefix: first.credential.prefix },
    routes: routes.map((r) => ({ method: r.method, path: r.path })),
  };
}

export interface BrokerRendering {
  /** broker/broker.json. */
  config: BrokerConfig;
  /** The base URL Qwen's settings get (the model listener), when the broker holds the model key. */
  modelBaseUrl?: string;
}

/**
 * Everything render derives for the broker; undefined without deployment.json `broker`. `qwenVersion`:
 * the pinned Qwen's, where render read it — its model client decides the model listener's routes.
 */
export function renderBroker(
  deployment: Deployment,
  qwenVersion: string | undefined,
): BrokerRendering | undefined {
  const broker = deployment.broker;
  if (broker === undefined) return undefined;
  const listeners: BrokerListener[] = [];
  let modelBaseUrl: string | undefined;
  const key = modelKeyCredential(deployment, qwenVersion);
  const client = modelClient(deployment, qwenVersion);
  const { baseUrl } = modelAuth(deployment);
  const split = typeof baseUrl === 'string' ? splitBaseUrl(baseUrl) : undefined;
  if (key !== undefined && client !== undefined && split !== undefined) {
    const port = brokerPort(deployment, MODEL_LISTENER);
    listeners.push({
      name: MODEL_LISTENER,
      port,
      upstream: split.origin,
      credential: key,
      header: client.credentialHeader,
      maxBodyBytes: BROKER_BODY_BYTES.model,
      routes: client.routes.map((r) => ({ method: r.method, path: `${split.prefix}${r.path}` })),
      // What the pinned Qwen sends (no settings key adds one: Qwen 0.24.x has no
      // model.generationConfig.customHeaders, and modelProviders is refused with a broker).
      callerHeaders: [...client.callerHeaders],
    });
    modelBaseUrl = `${brokerOrigin(port)}${split.prefix}`;
  }
  for (const kind of deployedKinds(deployment)) {
    const profile = deployment.profiles[kind]!;
    const upstream = providerUpstream(profile.provider, kind);
    listeners.push({
      name: kind,
      port: brokerPort(deployment, kind),
      upstream: upstream.origin,
      credential: upstream.credential,
      header: upstream.header,
      timeoutMs: brokerUpstreamTimeoutMs(profile.timeoutMs),
      maxBodyBytes: BROKER_BODY_BYTES.provider,
      routes: upstream.routes,
      callerHeaders: [...PROVIDER_CALLER_HEADERS],
    });
  }
  const allow = broker.allow ?? deployment.developers ?? { users: [], groups: [] };
  const credentials: BrokerConfig['credentials'] = {};
  for (const name of Object.keys(deployment.credentials).sort()) {
    const entry = deployment.credentials[name]!;
    if ('file' in entry) credentials[name] = { file: entry.file };
  }
  const config: BrokerConfig = {
    version: 1,
    user: broker.user,
    allow: { users: [...allow.users].sort(), groups: [...allow.groups].sort() },
    host: BROKER_HOST,
    credentials,
    ...(deployment.tls === undefined ? {} : { extraCaCertificates: deployment.tls.extraCaCertificates }),
    listeners,
  };
  return { config, ...(modelBaseUrl === undefined ? {} : { modelBaseUrl }) };
}

/** launch.json `broker` of a profile: the listeners its session uses and the variables set to the key. */
export function launchBroker(
  rendering: BrokerRendering,
  kind: ProfileKind,
  providerVariable: string,
): NonNullable<LaunchPlan['broker']> {
  return {
    user: rendering.config.user,
    host: BROKER_HOST,
    key: BROKER_KEY,
    listeners: rendering.config.listeners
      .filter((l) => l.name === MODEL_LISTENER || l.name === kind)
      .map((l) => ({ name: l.name, port: l.port })),
    keyVariables: [providerVariable],
  };
}

/** broker/systemd.conf: the drop-in that makes the packaged unit run this install's broker. */
export function systemdDropIn(deployment: Deployment, config: BrokerConfig): string {
  const lines = [
    `# qwen-managed: the credential broker of ${deployment.installDir} (rendered; re-render to change it).`,
    `# Install as /etc/systemd/system/${BROKER_UNIT}.d/qwen-managed.conf, then`,
    `# systemctl daemon-reload && systemctl restart ${BROKER_UNIT} (the Ansible role does both).`,
    '[Service]',
    `User=${config.user}`,
    `Environment=QWEN_MANAGED_INSTALL_DIR=${deployment.installDir}`,
    // The unit starts as the broker's user: systemd reads each file as root and hands it over.
    ...Object.entries(config.credentials).map(([name, { file }]) => `LoadCredential=${name}:${file}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * deployment.json `settings` as Qwen gets them with a broker: `security.auth.baseUrl` the model
 * listener (same path), `security.auth.apiKey` the public key. Everything else unchanged.
 */
export function brokeredSettings(settings: JsonObject, rendering: BrokerRendering): JsonObject {
  if (rendering.modelBaseUrl === undefined) return settings;
  const out = structuredClone(settings);
  const security = isPlainObject(out['security']) ? out['security'] : {};
  const auth = isPlainObject(security['auth']) ? security['auth'] : {};
  out['security'] = { ...security, auth: { ...auth, baseUrl: rendering.modelBaseUrl, apiKey: BROKER_KEY } };
  return out;
}
