// The credential broker's invariants (docs/admin.md, "The credential broker"). Over the tree:
// broker.json and the plans agree; the launcher reads no credential; every runtime and Qwen's model
// call a listener with the public key; no proxy captures the broker's traffic. On the real host
// (facts the I/O layer gathered): the broker's user is a non-login system user that no developer is;
// no allowed developer can read a credential file; no credential value is in any rendered file; each
// listener is held by root or the broker's user and answers.
import { checkOrigin } from '../../../base/origin.js';
import { judgeCredentialFile } from '../../../broker/credential-files.js';
import { parseRuntimeConfig } from '../../../config/load.js';
import { credentialVariable } from '../../../config/names.js';
import {
  BROKER_CONFIG_REL,
  BROKER_HOST,
  BROKER_KEY,
  brokerOrigin,
  MODEL_LISTENER,
} from '../../../contracts/broker.js';
import { type BrokerConfig, brokerConfigSchema } from '../../../contracts/broker-config.js';
import { PROFILE_FILES } from '../../../contracts/layout.js';
import { PLATFORM_V3_ORIGIN } from '../../../contracts/mem0-presets.js';
import type { AccountDb } from '../../../host/accounts.js';
import type { FileChain } from '../../../host/file-chain.js';
import { NO_PROXY_VARIABLES, noProxyCovers, withNoProxyHost } from '../../../policy/broker-env.js';
import { lookupEnv } from '../../../policy/environment-names.js';
import { isPlainObject } from '../../../text/json.js';
import { providerConfigVersion } from '../../deployment/provider-config.js';
import { showValue } from '../../json.js';
import type { Checks } from '../report.js';
import type { TreeView } from '../view.js';

/** broker.json of the tree, parsed; undefined when the tree has none, a string when it is broken. */
export function brokerConfigOf(view: TreeView): BrokerConfig | string | undefined {
  const bytes = view.tree.files.get(BROKER_CONFIG_REL)?.bytes;
  if (bytes === undefined) return undefined;
  try {
    const parsed = brokerConfigSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    return parsed.success ? parsed.data : `${BROKER_CONFIG_REL} does not match its schema; re-render`;
  } catch {
    return `${BROKER_CONFIG_REL} is not JSON; re-render`;
  }
}

/** Tree-only checks: broker.config, broker.routing, broker.no-proxy. */
export function checkBrokerTree(view: TreeView, checks: Checks): void {
  const config = brokerConfigOf(view);
  const brokered = view.profiles.filter((p) => p.plan?.broker !== undefined);
  if (config === undefined && brokered.length === 0) return;
  const file = { file: BROKER_CONFIG_REL };
  if (config === undefined || typeof config === 'string') {
    checks.add(
      'broker.config',
      file,
      false,
      config ?? `the plans name a broker but ${BROKER_CONFIG_REL} is missing; re-render`,
    );
    return;
  }
  const problems: string[] = [];
  for (const listener of config.listeners) {
    if (!Object.hasOwn(config.credentials, listener.credential))
      problems.push(
        `listener ${listener.name} sends ${listener.credential}, which broker.json holds no file for`,
      );
  }
  for (const profile of view.profiles) {
    const plan = profile.plan;
    if (plan === undefined) continue;
    const at = `profiles/${profile.kind}/${PROFILE_FILES.launchPlan}`;
    if (plan.broker === undefined) {
      problems.push(
        `${at} has no "broker" block, but the tree has a broker: its session would read credential files`,
      );
      continue;
    }
    if (Object.keys(plan.credentials).length > 0)
      problems.push(
        `${at} routes credentials ${Object.keys(plan.credentials).join(', ')} to the launcher; with a broker it reads none`,
      );
    if (plan.broker.user !== config.user)
      problems.push(`${at} names broker user ${plan.broker.user}, broker.json ${config.user}`);
    if (plan.broker.key !== BROKER_KEY)
      problems.push(
        `${at} gives the session the key ${showValue(plan.broker.key)}, not the broker's public key`,
      );
    for (const listener of plan.broker.listeners) {
      const own = config.listeners.find((l) => l.name === listener.name);
      if (own === undefined || own.port !== listener.port)
        problems.push(
          `${at} expects listener ${listener.name} on port ${listener.port}, which broker.json does not have`,
        );
    }
  }
  checks.expect(
    'broker.config',
    file,
    problems,
    'broker.json and every launch plan agree: the launcher reads no credential',
  );

  for (const profile of view.profiles) {
    const plan = profile.plan;
    if (plan?.broker === undefined) continue;
    const routing: string[] = [];
    const listener = (name: string) => config.listeners.find((l) => l.name === name);
    if (profile.state === 'active') {
      const text = profile.text(PROFILE_FILES.providerConfig);
      try {
        const provider = parseRuntimeConfig(text ?? '', providerConfigVersion(profile.kind)).provider;
        const own = listener(profile.kind);
        const origin =
          provider.type === 'mem0'
            ? provider.endpoint.origin
            : provider.type === 'mem0-platform-v3'
              ? PLATFORM_V3_ORIGIN
              : provider.baseUrl;
        const checked = checkOrigin(origin);
        if (own === undefined || !checked.ok || checked.origin !== brokerOrigin(own.port))
          routing.push(
            `the provider is called at ${showValue(origin)}, not at the broker's ${profile.kind} listener`,
          );
        if (!plan.broker.keyVariables.includes(credentialVariable(provider)))
          routing.push(`the session does not set ${credentialVariable(provider)} to the broker's public key`);
      } catch {
        // provider.config reports an unreadable config
      }
    }
    const model = listener(MODEL_LISTENER);
    if (model !== undefined) {
      const settings = profile.json(PROFILE_FILES.systemSettings);
      const security =
        settings?.ok === true && isPlainObject(settings.value) ? settings.value['security'] : undefined;
      const auth = isPlainObject(security) && isPlainObject(security['auth']) ? security['auth'] : {};
      const baseUrl = typeof auth['baseUrl'] === 'string' ? auth['baseUrl'] : '';
      if (!baseUrl.startsWith(`${brokerOrigin(model.port)}/`) && baseUrl !== brokerOrigin(model.port))
        routing.push(
          `security.auth.baseUrl ${showValue(auth['baseUrl'])} is not the broker's model listener`,
        );
      if (auth['apiKey'] !== BROKER_KEY)
        routing.push("security.auth.apiKey is not the broker's public key (the fixed key in settings)");
    }
    checks.expect(
      'broker.routing',
      { profile: profile.kind, file: `profiles/${profile.kind}/${PROFILE_FILES.systemSettings}` },
      routing,
      "Qwen's model and the provider are called at the broker's listeners, with the public key",
    );
    // The launcher's own rule (src/policy/broker-env.ts) over the plan's values: a set proxy list is extended.
    const coverage: string[] = [];
    for (const name of NO_PROXY_VARIABLES) {
      const value = withNoProxyHost(lookupEnv(plan.environment.set, name, plan.platform), plan.broker.host);
      if (!noProxyCovers(value, BROKER_HOST)) coverage.push(`${name} would not list ${BROKER_HOST}`);
    }
    checks.expect(
      'broker.no-proxy',
      { profile: profile.kind },
      coverage,
      `NO_PROXY and no_proxy of the session list ${BROKER_HOST}: no proxy sees the broker's traffic`,
    );
  }
}

export interface BrokerHostFacts {
  db: AccountDb;
  /** The broker user's login shell (passwd field 7), when the user exists. */
  shell: string | undefined;
  /** Credential file → the entries the kernel meets opening it (src/host/file-chain.ts). */
  walks: ReadonlyMap<string, FileChain>;
  /** Rendered files (relative path) holding the value of a credential (by variable name). */
  secretsIn: ReadonlyArray<{ file: string; credential: string }>;
  /** Per listener: the owner problems and health answer the launcher would see (empty: fine). */
  listeners: ReadonlyArray<{ name: string; port: number; running: boolean; problems: readonly string[] }>;
  /** /proc/sys/net/ipv4/ip_unprivileged_port_start. */
  unprivilegedPortStart: number | undefined;
  /** The broker's own refusal of its user (src/broker/load.ts brokerAccount), when it refuses. */
  userProblems: readonly string[];
}

/** Host checks on the real install: broker.user, broker.credentials, broker.secrets, broker.listeners. */
export function checkBrokerHost(
  view: TreeView,
  facts: BrokerHostFacts,
  checks: Checks,
  adminUid: number,
): void {
  const config = brokerConfigOf(view);
  if (config === undefined || typeof config === 'string') return;
  checks.expect(
    'broker.user',
    {},
    facts.userProblems,
    `the broker runs as ${config.user}: a system user without login that no developer is`,
  );

  const credentialErrors: string[] = [];
  const credentialWarnings: string[] = [];
  for (const [name, { file }] of Object.entries(config.credentials)) {
    // The broker's own start judgement (src/broker/credential-files.ts): what it refuses, verify fails.
    const judged = judgeCredentialFile(
      name,
      file,
      facts.walks.get(file) ?? { kind: 'missing', path: file },
      facts.db,
      {
        ...config,
        adminUid,
      },
    );
    credentialErrors.push(...judged.errors);
    credentialWarnings.push(...judged.warnings);
  }
  checks.expect(
    'broker.credentials',
    {},
    credentialErrors,
    'no user allowed to use the broker can read a credential file',
  );
  for (const warning of credentialWarnings) checks.add('broker.credentials', {}, false, warning, 'warning');

  checks.expect(
    'broker.secrets',
    {},
    facts.secretsIn.map(
      ({ file, credential }) =>
        `${file} holds the value of ${credential}; remove it and re-render (with a broker no rendered file holds a secret)`,
    ),
    'no rendered file holds a credential value',
  );

  for (const listener of facts.listeners) {
    const scope = { file: `${BROKER_CONFIG_REL}#${listener.name}` };
    if (facts.unprivilegedPortStart !== undefined && listener.port >= facts.unprivilegedPortStart)
      checks.add(
        'broker.listeners',
        scope,
        false,
        `port ${listener.port} is not below ip_unprivileged_port_start (${facts.unprivilegedPortStart}): while the broker is stopped a developer could listen there and receive others' requests (the launcher refuses such a port's owner at start, a running session does not re-check); use a port below ${facts.unprivilegedPortStart}`,
        'warning',
      );
    if (!listener.running) {
      checks.add(
        'broker.listeners',
        scope,
        false,
        `the broker is not running (nothing listens on ${BROKER_HOST}:${listener.port}); start it before developers launch: systemctl enable --now qwen-managed-broker`,
        'warning',
      );
      continue;
    }
    checks.expect(
      'broker.listeners',
      scope,
      listener.problems,
      `${BROKER_HOST}:${listener.port} is the broker's and answers`,
    );
  }
}
