// The credential broker's fixed names (docs/admin.md, "The credential broker"): shared by render,
// verify, the launcher, the broker itself and probe. No zod here: the launcher imports these names.
import type { ProfileKind } from './launch-plan.js';

/** The broker's file in the install tree: its listeners, routes, credentials and who may connect. */
export const BROKER_CONFIG_REL = 'broker/broker.json';
/** A systemd drop-in for the packaged unit: this install's directory, user and credentials. */
export const BROKER_SYSTEMD_REL = 'broker/systemd.conf';
/** The packaged systemd unit the drop-in extends (and the unit `systemctl` names in messages). */
export const BROKER_UNIT = 'qwen-managed-broker.service';

/** Every listener binds here: loopback only, IPv4, the address Qwen's and the runtimes' URLs name. */
export const BROKER_HOST = '127.0.0.1';

/**
 * What Qwen and the runtimes send in place of every credential once a broker holds them: a fixed,
 * public value (Qwen refuses an empty API key, the runtimes an unset credential variable). The broker
 * removes it with every other caller credential header and adds the real one.
 */
export const BROKER_KEY = 'qwen-managed-broker-no-secret';

/** The listener that carries Qwen's model traffic; the others are named after their profile. */
export const MODEL_LISTENER = 'model';
export type ListenerName = typeof MODEL_LISTENER | ProfileKind;

/**
 * Default ports, below the unprivileged start (1024 on Linux unless lowered): no developer can bind
 * them, so no developer can stand in for a stopped broker and collect others' requests.
 */
export const DEFAULT_BROKER_PORTS: Readonly<Record<ListenerName, number>> = {
  model: 940,
  'on-demand': 941,
  'auto-recall': 942,
  write: 943,
};

/**
 * The ports the Fetch standard blocks ("bad port", fetch.spec.whatwg.org §2.9): Node's fetch() — the
 * client Qwen's model requests go through — refuses them before it connects (`fetch failed`, cause
 * `bad port`), while a plain socket or undici's request() reaches them. A listener there would answer
 * the launcher's health check and the runtimes, and never receive one model request (measured: Node
 * 20 and 22 refuse exactly these; test/unit/contracts/broker-ports.test.ts pins the list to Node's).
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** The system user the broker runs as when deployment.json names none. */
export const DEFAULT_BROKER_USER = 'qwen-managed-broker';

/** Answered by every listener itself (never forwarded): whether the broker runs and lets the caller in. */
export const BROKER_HEALTH_PATH = '/.well-known/qwen-managed-broker/health';

/**
 * `http://127.0.0.1:<port>`: the origin Qwen and the runtimes are rendered to call, written as the URL
 * standard writes it (port 80, http's default, is dropped): every reader of it — the runtimes'
 * origin check, verify — parses it so, and a `:80` kept here made verify call port 80 misrouted.
 */
export function brokerOrigin(port: number): string {
  return new URL(`http://${BROKER_HOST}:${port}`).origin;
}

/**
 * The credential headers the broker removes from every caller request before it adds the real one:
 * whatever a client could use to smuggle its own credential (or another's) upstream.
 */
export const CALLER_CREDENTIAL_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  // What API gateways and other front ends take a key from instead (Azure API Management, OpenStack
  // and many a self-hosted server): an upstream that prefers it would serve the caller's identity.
  'ocp-apim-subscription-key',
  'x-auth-token',
  'token',
];

/**
 * Caller headers some upstream frameworks read as a different method, path or client than the request
 * line and the connection say (Rack/Rails, Laravel/Symfony, Express method-override, Google front ends
 * honour `X-HTTP-Method-Override` on a POST; IIS-style rewrites honour `X-Original-URL`): forwarded,
 * they would turn a pinned `POST` into, say, the `DELETE` of the same path — Mem0's "delete all
 * memories" beside its import write. The broker removes them with the credential headers.
 */
export const CALLER_REROUTING_HEADERS: readonly string[] = [
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
  'x-original-method',
  // The caller's network position, like Forwarded and X-Forwarded-*: never the broker's to vouch for.
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
  'client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  // LLM gateways that route by a caller header: in front of the model they would send the request —
  // the broker's credential with it — to a host or provider the caller names (Helicone's gateway
  // forwards to Helicone-Target-Url; Portkey to x-portkey-custom-host, or as another provider,
  // config or stored key). Any other ordinary header still reaches the model: docs/admin.md.
  'helicone-target-url',
  'helicone-target-provider',
  'helicone-openai-api-base',
  'helicone-fallbacks',
  'x-portkey-custom-host',
  'x-portkey-provider',
  'x-portkey-config',
  'x-portkey-virtual-key',
];

/**
 * The caller headers a provider listener forwards (besides what the broker sets itself: the
 * credential, content-type, content-length, accept-encoding): the runtimes' provider requests carry
 * no other (src/http/client.ts), so every other one is dropped — none a provider, or a gateway in front
 * of it, reads as another scope, tenant, route or target comes from the caller. The model listener
 * cannot list Qwen's (its SDKs' own, and the administrator's customHeaders): it drops the lists above.
 */
export const PROVIDER_CALLER_HEADERS: readonly string[] = ['accept', 'user-agent'];
