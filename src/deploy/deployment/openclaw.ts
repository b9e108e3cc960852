// Validation of deployment.json's `openclaw` block and openclaw-recall profile (docs/openclaw.md):
// what the admin's OpenClaw config may not hold, and the pins the profile needs.
import { OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import { isPlainObject } from '../../text/json.js';
import { routeCredentials } from './credential-routes.js';
import { type Problem, problem } from './problems.js';
import type { Deployment, OpenclawBlock } from './schema.js';

/**
 * The tool settings render writes into openclaw.json. The plugin's provider token and the model key
 * are in OpenClaw's environment (no broker fronts this profile), and with OpenClaw's defaults the
 * model's `exec` runs any command with no approval and its file tools read any path: measured on
 * 2026.9.6, `exec env` and `read /proc/self/environ` handed the provider token to the model
 * verbatim, with no one asked. Exec denied and file tools kept in the workspace (a link out of it is
 * refused too), neither did.
 */
export const OPENCLAW_TOOL_FLOOR = { exec: { mode: 'deny' }, fs: { workspaceOnly: true } } as const;

/** Where an OpenClaw config can set the tool floor's keys: globally, for every agent, per agent. */
export function toolFloorKeyPaths(config: Record<string, unknown>): (string | number)[][] {
  const paths: (string | number)[][] = [];
  const at = (owner: unknown, ownerPath: (string | number)[]) => {
    const tools = isPlainObject(owner) ? owner['tools'] : undefined;
    if (!isPlainObject(tools)) return;
    for (const key of Object.keys(OPENCLAW_TOOL_FLOOR))
      if (Object.hasOwn(tools, key)) paths.push([...ownerPath, 'tools', key]);
  };
  at(config, []);
  const agents = config['agents'];
  if (isPlainObject(agents)) {
    at(agents['defaults'], ['agents', 'defaults']);
    const entries = agents['entries'];
    if (isPlainObject(entries))
      for (const [id, entry] of Object.entries(entries)) at(entry, ['agents', 'entries', id]);
    const list = agents['list'];
    if (Array.isArray(list)) for (const [i, entry] of list.entries()) at(entry, ['agents', 'list', i]);
  }
  return paths;
}

function includeKeyPaths(value: unknown, at: (string | number)[]): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => includeKeyPaths(item, [...at, i]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$include' ? [[...at, key]] : includeKeyPaths(inner, [...at, key]),
  );
}

/** `${NAME}` as OpenClaw substitutes it in every config string; `$${NAME}` is a literal. */
const SUBSTITUTION = /(\$?)\$\{([A-Z_][A-Z0-9_]*)\}/g;

/** Every environment name the config reads: `${NAME}` in a string, or an env SecretRef's `id`. */
function environmentReads(
  value: unknown,
  at: (string | number)[],
): { keyPath: (string | number)[]; name: string; value: unknown }[] {
  if (typeof value === 'string') {
    return [...value.matchAll(SUBSTITUTION)]
      .filter((match) => match[1] === '')
      .map((match) => ({ keyPath: at, name: match[2]!, value }));
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => environmentReads(item, [...at, i]));
  if (!isPlainObject(value)) return [];
  if (value['source'] === 'env' && typeof value['id'] === 'string')
    return [{ keyPath: [...at, 'id'], name: value['id'], value: value['id'] }];
  return Object.entries(value).flatMap(([key, inner]) => environmentReads(inner, [...at, key]));
}

/**
 * `${NAME}` (or an env SecretRef) that the managed launch does not always set. OpenClaw fills every
 * variable missing from its environment from the working directory's `.env` — the repository's —
 * before it reads the config (measured on 2026.9.6: a header `${REPO_CHOSEN}` and a model key
 * `${LLM_API_KEY}` took the repository's values), so such a name lets the repository complete the
 * pinned config. Always set: the credentials routed to the profile (not the provider's, which a
 * rollback drops), `environment.set`, and HOME.
 */
export function unpinnedEnvironmentReads(deployment: Deployment, config: Record<string, unknown>): Problem[] {
  const route = routeCredentials(deployment).routes.get(OPENCLAW_PROFILE);
  const set = new Set<string>(['HOME', ...Object.keys(deployment.environment.set)]);
  for (const name of Object.keys(route?.all ?? {})) if (!route!.external.includes(name)) set.add(name);
  return environmentReads(config, ['openclaw', 'config'])
    .filter(({ keyPath, name }) => !set.has(name) && !isProviderBaseUrl(keyPath))
    .map(({ keyPath, name, value }) =>
      problem(
        keyPath,
        value,
        `reads ${name}, which the managed launch does not set: OpenClaw would take it from the repository's .env`,
        `route a credential ${name} to "${OPENCLAW_PROFILE}" (its "profiles"), set it in environment.set, or write the value itself`,
      ),
    );
}

/** models.providers.<id>.baseUrl: refused whole when not a literal URL (below), so not twice. */
function isProviderBaseUrl(keyPath: (string | number)[]): boolean {
  return (
    keyPath.length === 6 && keyPath[2] === 'models' && keyPath[3] === 'providers' && keyPath[5] === 'baseUrl'
  );
}

/**
 * What the admin's `openclaw.config` may not hold: the keys render manages, what would make OpenClaw
 * read configuration or environment from elsewhere at run time, and a model endpoint it does not pin.
 */
export function openclawConfigProblems(config: Record<string, unknown>): Problem[] {
  const at = ['openclaw', 'config'];
  const problems: Problem[] = [];
  if (Object.hasOwn(config, 'plugins')) {
    problems.push(
      problem(
        [...at, 'plugins'],
        config['plugins'],
        'is managed by render: the profile allows only the qwen-managed plugin, with its hook permissions and timeout',
        'remove "plugins"',
      ),
    );
  }
  const agents = config['agents'];
  const defaults = isPlainObject(agents) ? agents['defaults'] : undefined;
  if (isPlainObject(defaults) && Object.hasOwn(defaults, 'workspace')) {
    problems.push(
      problem(
        [...at, 'agents', 'defaults', 'workspace'],
        defaults['workspace'],
        'is managed by render: the default agent works in repositoryRoot',
        'remove it (agents.list[].workspace outside repositoryRoot gets no recalled context)',
      ),
    );
  }
  const entries = isPlainObject(agents) ? agents['entries'] : undefined;
  if (isPlainObject(entries) && !Object.hasOwn(entries, 'main')) {
    problems.push(
      problem(
        [...at, 'agents', 'entries'],
        Object.keys(entries),
        'lists agents but not "main", the agent the managed session runs (OpenClaw then knows no "main")',
        'add "main": {} to agents.entries',
      ),
    );
  }
  if (
    isPlainObject(entries) &&
    Object.keys(entries).length > 1 &&
    isPlainObject(agents) &&
    agents['ownership'] !== 'explicit' &&
    !Object.values(entries).some((entry) => isPlainObject(entry) && entry['default'] === true)
  ) {
    problems.push(
      problem(
        [...at, 'agents', 'ownership'],
        agents['ownership'],
        'is not "explicit" for a roster of several agents: OpenClaw refuses the whole config then (measured on 2026.9.6), and every turn fails',
        'add "ownership": "explicit" to openclaw.config.agents',
      ),
    );
  }
  for (const keyPath of toolFloorKeyPaths(config)) {
    problems.push(
      problem(
        [...at, ...keyPath],
        undefined,
        'is managed by render (tools.exec.mode "deny", tools.fs.workspaceOnly true): OpenClaw\'s environment holds the provider token and the model key, and the model\'s exec and file tools would hand them to the model with no one asked (measured)',
        `remove "${keyPath.at(-1)}"`,
      ),
    );
  }
  for (const keyPath of includeKeyPaths(config, [])) {
    problems.push(
      problem(
        [...at, ...keyPath],
        undefined,
        'makes OpenClaw read more configuration from other files at run time, outside the pinned file',
        'write the included content into openclaw.config itself',
      ),
    );
  }
  const env = config['env'];
  if (isPlainObject(env) && Object.hasOwn(env, 'shellEnv')) {
    problems.push(
      problem(
        [...at, 'env', 'shellEnv'],
        env['shellEnv'],
        "imports variables from the user's login shell, whose startup files the user (or a repository's tooling) controls",
        'remove "shellEnv"; route secrets through "credentials"',
      ),
    );
  }
  // OpenClaw applies env.vars only to names still unset after the working directory's .env — the
  // repository's — filled them (measured: the repository's value replaced the administrator's).
  const vars = isPlainObject(env) ? env['vars'] : undefined;
  if (isPlainObject(vars)) {
    for (const name of Object.keys(vars)) {
      problems.push(
        problem(
          [...at, 'env', 'vars', name],
          undefined,
          "is applied only when OpenClaw's environment lacks the name, after the repository's .env had its turn, so the repository decides its value",
          `set ${name} in environment.set instead: the launcher gives it to OpenClaw before it starts, and no .env replaces it`,
        ),
      );
    }
  }
  const models = config['models'];
  const providers = isPlainObject(models) ? models['providers'] : undefined;
  if (isPlainObject(providers)) {
    for (const [id, provider] of Object.entries(providers)) {
      const baseUrl = isPlainObject(provider) ? provider['baseUrl'] : undefined;
      if (typeof baseUrl !== 'string' || !/^https?:\/\/[^\s$]+$/.test(baseUrl)) {
        problems.push(
          problem(
            [...at, 'models', 'providers', id, 'baseUrl'],
            baseUrl,
            'must be a literal http(s) URL: every model endpoint is what the administrator pinned (OpenClaw would substitute `${VAR}` from the environment)',
            'write the endpoint URL itself, e.g. "https://llm.example.com/v1"',
          ),
        );
      }
    }
  }
  return problems;
}

/** Problems of the `openclaw` block and the openclaw-recall profile together. */
export function openclawDeploymentProblems(
  deployment: Deployment,
  pathProblems: (keyPath: (string | number)[], value: string) => Problem[],
): Problem[] {
  const profile = deployment.profiles[OPENCLAW_PROFILE];
  const block: OpenclawBlock | undefined = deployment.openclaw;
  if (profile === undefined) {
    return block === undefined
      ? []
      : [
          problem(
            ['openclaw'],
            undefined,
            'is set, but no openclaw-recall profile is deployed',
            'add "profiles": {"openclaw-recall": {…}}, or remove "openclaw"',
          ),
        ];
  }
  if (block === undefined) {
    return [
      problem(
        ['profiles', OPENCLAW_PROFILE],
        undefined,
        'needs OpenClaw: the top-level "openclaw" block is missing',
        'add "openclaw": {"node": "<Node 24>", "cli": "<…/node_modules/openclaw/openclaw.mjs>", "config": {…}}',
      ),
    ];
  }
  const problems: Problem[] = [];
  if (deployment.platform !== 'posix') {
    problems.push(
      problem(
        ['profiles', OPENCLAW_PROFILE],
        undefined,
        `is measured and supported on POSIX only, not ${deployment.platform}`,
        'deploy it from a posix deployment',
      ),
    );
  }
  problems.push(
    ...pathProblems(['openclaw', 'node'], block.node),
    ...pathProblems(['openclaw', 'cli'], block.cli),
  );
  if (!block.cli.endsWith('/openclaw.mjs')) {
    problems.push(
      problem(
        ['openclaw', 'cli'],
        block.cli,
        "is not OpenClaw's openclaw.mjs",
        'point at node_modules/openclaw/openclaw.mjs of the pinned OpenClaw package',
      ),
    );
  }
  problems.push(
    ...openclawConfigProblems(block.config),
    ...unpinnedEnvironmentReads(deployment, block.config),
  );
  return problems;
}
