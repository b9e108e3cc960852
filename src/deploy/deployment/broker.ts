// The rules of deployment.json `broker`: with a broker every credential is a file only the broker
// reads, and every credential is one the broker sends somewhere (a deployed provider's, or the model
// key of a model client it fronts); the model reaches Qwen through security.auth only; nothing routes
// Qwen around the broker; the listeners do not collide, nor sit on a port fetch() refuses. Each problem
// names the key, value and fix.
import { BROKER_MIN_PROVIDER_TIMEOUT_MS } from '../../base/limits.js';
import { LOOPBACK_HOSTS } from '../../base/origin.js';
import { credentialVariable } from '../../config/names.js';
import {
  DEFAULT_BROKER_PORTS,
  FETCH_BLOCKED_PORTS,
  type ListenerName,
  MODEL_LISTENER,
} from '../../contracts/broker.js';
import { OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import { sameEnvName } from '../../policy/environment-names.js';
import { pinnedQwenFacts } from '../../qwen/versions.js';
import { POSIX_ACCOUNT } from './account-names.js';
import {
  brokerPort,
  modelAuth,
  modelClient,
  modelClients,
  modelKeyCredential,
  SYSTEMD_UNSAFE,
  splitBaseUrl,
} from './broker-model.js';
import { deployedKinds } from './kinds.js';
import { type Problem, problem } from './problems.js';
import type { Deployment } from './schema.js';

function modelProblems(deployment: Deployment, qwenVersion: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const clients = modelClients(qwenVersion);
  const auth = modelAuth(deployment);
  const key = modelKeyCredential(deployment, qwenVersion);
  if (key !== undefined) {
    const split = typeof auth.baseUrl === 'string' ? splitBaseUrl(auth.baseUrl) : undefined;
    if (split === undefined) {
      problems.push(
        problem(
          ['settings', 'security', 'auth', 'baseUrl'],
          auth.baseUrl,
          `must be the model's real http(s) URL without credentials, query or fragment: the broker forwards ${key}'s requests there`,
          'set "baseUrl": "https://llm.example.com/v1"',
        ),
      );
    } else if (split.origin.startsWith('http:') && !LOOPBACK_HOSTS.has(new URL(split.origin).hostname)) {
      problems.push(
        problem(
          ['settings', 'security', 'auth', 'baseUrl'],
          auth.baseUrl,
          'is plain HTTP to another host: the broker would send the model key over the network unencrypted',
          'use https://',
        ),
      );
    }
  }
  if (auth.apiKey !== undefined) {
    problems.push(
      problem(
        ['settings', 'security', 'auth', 'apiKey'],
        '<set>',
        'puts a key into the system settings every developer can read; with a broker render sets the public broker key here',
        'remove apiKey and route the model key through "credentials" (e.g. "OPENAI_API_KEY": {"file": …})',
      ),
    );
  }
  if (deployment.settings?.['modelProviders'] !== undefined) {
    problems.push(
      problem(
        ['settings', 'modelProviders'],
        undefined,
        'gives models their own baseUrl and key variable, which Qwen prefers to security.auth: their requests would go around the broker',
        'describe the model in "model" and "security.auth" only',
      ),
    );
  }
  // Qwen prefers these variables to settings: a copy from the environment would route around the broker.
  const variables = Object.values(clients).flatMap((c) => [c.keyVariable, c.baseUrlVariable]);
  const { inherit, set } = deployment.environment;
  for (const variable of [...new Set(variables)]) {
    const inherited = inherit.findIndex((n) => sameEnvName(n, variable, deployment.platform));
    const keyPath =
      inherited !== -1
        ? ['environment', 'inherit', inherited]
        : Object.keys(set).some((n) => sameEnvName(n, variable, deployment.platform))
          ? ['environment', 'set', variable]
          : undefined;
    if (keyPath !== undefined) {
      problems.push(
        problem(
          keyPath,
          variable,
          'would reach Qwen, which prefers it to the settings the broker renders: the model traffic would go around the broker',
          `remove ${variable} from "environment"; the broker holds the model key (credentials) and render points Qwen at it`,
        ),
      );
    }
  }
  return problems;
}

function credentialProblems(deployment: Deployment, qwenVersion: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const providers = new Set(
    deployedKinds(deployment).map((k) => credentialVariable(deployment.profiles[k]!.provider)),
  );
  const key = modelKeyCredential(deployment, qwenVersion);
  const client = modelClient(deployment, qwenVersion);
  for (const [name, entry] of Object.entries(deployment.credentials)) {
    if (!('file' in entry)) {
      problems.push(
        problem(
          ['credentials', name],
          entry,
          "is taken from the developer's environment, but with a broker only the broker holds credentials",
          `write "${name}": {"file": "<absolute path only root can read>"}`,
        ),
      );
    } else if (SYSTEMD_UNSAFE.test(entry.file)) {
      problems.push(
        problem(
          ['credentials', name, 'file'],
          entry.file,
          "cannot go into the broker's systemd drop-in (LoadCredential=): it holds whitespace, a quote, a backslash, ; or %",
          'move the file to a plain path',
        ),
      );
    }
    if (providers.has(name) || name === key) continue;
    const model =
      client === undefined
        ? `security.auth.selectedType ${JSON.stringify(modelAuth(deployment).selectedType ?? null)} is not a model client the broker fronts in Qwen ${pinnedQwenFacts(qwenVersion).version} (${Object.keys(modelClients(qwenVersion)).join(', ')})`
        : `the model key is ${client.keyVariable}`;
    problems.push(
      problem(
        ['credentials', name],
        name,
        `is held by the broker but sent nowhere: no deployed provider names it, and ${model}`,
        'remove it, or deploy without "broker" (then the launcher delivers it)',
      ),
    );
  }
  return problems;
}

/**
 * The rules that read the pinned Qwen's model clients (a per-version fact): whether the broker fronts
 * the model (and so holds its key and listens for it), what routes around it.
 */
function versionedProblems(deployment: Deployment, qwenVersion: string | undefined): Problem[] {
  const problems: Problem[] = [];
  const used: ListenerName[] = [
    ...(modelKeyCredential(deployment, qwenVersion) === undefined ? [] : [MODEL_LISTENER as ListenerName]),
    ...deployedKinds(deployment),
  ];
  const seen = new Map<number, string>();
  for (const name of used) {
    const port = brokerPort(deployment, name);
    const other = seen.get(port);
    if (other !== undefined)
      problems.push(
        problem(
          ['broker', 'ports', name],
          port,
          `is also the port of the ${other} listener`,
          'give each listener its own port',
        ),
      );
    seen.set(port, name);
    // Checked before the port is bound: the broker would answer its health check and the runtimes
    // there, yet every fetch() client (Qwen's model client) fails before it connects.
    if (FETCH_BLOCKED_PORTS.has(port))
      problems.push(
        problem(
          ['broker', 'ports', name],
          port,
          `is a port fetch() refuses to connect to (a "bad port" of the Fetch standard): ${name === MODEL_LISTENER ? 'every model request of Qwen' : 'every request of a fetch() client'} through this listener would fail with "fetch failed"`,
          `choose another port (the default is ${DEFAULT_BROKER_PORTS[name]})`,
        ),
      );
  }
  return [
    ...problems,
    ...modelProblems(deployment, qwenVersion),
    ...credentialProblems(deployment, qwenVersion),
  ];
}

/**
 * What the pinned Qwen `version` (read on the machine render runs on) adds to brokerProblems, which
 * judged the deployment by the default version: the version's own problems the default's did not
 * have (none for the default version, or for an unsupported one, judged as the default: the host
 * checks refuse that version).
 */
export function pinnedBrokerProblems(deployment: Deployment, version: string | undefined): Problem[] {
  if (deployment.broker === undefined || deployment.platform === 'windows' || version === undefined)
    return [];
  const seen = new Set(versionedProblems(deployment, undefined).map((p) => JSON.stringify(p)));
  return versionedProblems(deployment, version).filter((p) => !seen.has(JSON.stringify(p)));
}

/** Every problem of deployment.json `broker` (none without one). */
export function brokerProblems(deployment: Deployment): Problem[] {
  const broker = deployment.broker;
  if (broker === undefined) return [];
  if (deployment.platform === 'windows') {
    return [
      problem(
        ['broker'],
        undefined,
        'needs Linux: the broker learns who calls from the kernel socket table, and Windows gives Node no peer uid',
        'remove "broker" from the Windows deployment; Windows keeps the credentials routed by the launcher',
      ),
    ];
  }
  const problems: Problem[] = [];
  if (deployment.profiles[OPENCLAW_PROFILE] !== undefined) {
    problems.push(
      problem(
        ['profiles', OPENCLAW_PROFILE],
        undefined,
        'is not fronted by the credential broker yet: its plugin would need the credential in the OpenClaw process',
        'deploy the OpenClaw profile from a deployment without "broker"',
      ),
    );
  }
  const allow = broker.allow ?? deployment.developers;
  if (allow === undefined || allow.users.length + allow.groups.length === 0) {
    problems.push(
      problem(
        ['broker', 'allow'],
        broker.allow,
        'names no one who may use the broker',
        'add "allow": {"users": [...], "groups": [...]}, or a top-level "developers" block it defaults to',
      ),
    );
  }
  for (const list of ['users', 'groups'] as const) {
    broker.allow?.[list].forEach((name, i) => {
      if (!POSIX_ACCOUNT.test(name))
        problems.push(
          problem(
            ['broker', 'allow', list, i],
            name,
            'is not a POSIX account name',
            'write it as `id -un` prints it',
          ),
        );
    });
  }
  if (!POSIX_ACCOUNT.test(broker.user) || broker.user === 'root') {
    problems.push(
      problem(
        ['broker', 'user'],
        broker.user,
        broker.user === 'root'
          ? 'is root: the broker must run as its own unprivileged system user'
          : 'is not a POSIX account name',
        'use "qwen-managed-broker" (the package and the role create it)',
      ),
    );
  } else if (allow?.users.includes(broker.user) === true) {
    problems.push(
      problem(
        ['broker', 'user'],
        broker.user,
        'is also a user allowed to call the broker: that developer could read every credential',
        'give the broker its own system user',
      ),
    );
  }
  if (SYSTEMD_UNSAFE.test(deployment.installDir)) {
    problems.push(
      problem(
        ['installDir'],
        deployment.installDir,
        "cannot go into the broker's systemd drop-in: it holds whitespace, a quote, a backslash, ; or %",
        'use a plain path',
      ),
    );
  }
  for (const kind of deployedKinds(deployment)) {
    const timeoutMs = deployment.profiles[kind]!.timeoutMs;
    if (timeoutMs < BROKER_MIN_PROVIDER_TIMEOUT_MS)
      problems.push(
        problem(
          ['profiles', kind, 'timeoutMs'],
          timeoutMs,
          "leaves no room for the broker's own deadline below it",
          `use at least ${BROKER_MIN_PROVIDER_TIMEOUT_MS}`,
        ),
      );
  }
  return [...problems, ...versionedProblems(deployment, undefined)];
}
