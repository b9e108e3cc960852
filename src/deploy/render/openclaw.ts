// The openclaw-recall profile's files (docs/openclaw.md): the plugin package under
// runtime/openclaw-recall/ and profiles/openclaw-recall/openclaw.json, the admin's own OpenClaw
// config with the managed keys merged in. Pure: data in, data out.
import { OPENCLAW_HOOK_TIMEOUT_MS } from '../../base/limits.js';
import { OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import {
  installIdFor,
  OPENCLAW_PLUGIN_PACKAGE,
  OPENCLAW_PROFILE_FILES,
  PinnedLayout,
} from '../../contracts/layout.js';
import { OPENCLAW_PLUGIN_ID } from '../../contracts/names.js';
import {
  OPENCLAW_CONFIG_VARIABLE,
  type OpenclawLaunchPlan,
  openclawLaunchPlanSchema,
} from '../../contracts/openclaw-launch.js';
import { DEFAULT_OPENCLAW_VERSION, openclawVersionFacts } from '../../openclaw/versions.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import type { ProfileCredentials } from '../deployment/credential-routes.js';
import { type Problem, problem } from '../deployment/problems.js';
import type { Deployment, OpenclawBlock } from '../deployment/schema.js';
import { renderJson } from '../json.js';
import { providerConfigFor } from './provider-config.js';

/** The one OpenClaw hook the plugin registers, and the name OpenClaw's `hooks.timeouts` uses for it. */
export const OPENCLAW_HOOK = 'before_prompt_build';

/** The plugin's config schema (openclaw.plugin.json `configSchema`): OpenClaw validates the entry's `config` with it. */
export const OPENCLAW_PLUGIN_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['configFile'],
  properties: {
    configFile: {
      type: 'string',
      description:
        'Absolute path of the version-2 provider config (profiles/openclaw-recall/external-context.json)',
    },
  },
} as const;

/** openclaw.plugin.json: the id, startup activation and the config schema. */
export function pluginManifest(toolkitVersion: string): JsonObject {
  return {
    id: OPENCLAW_PLUGIN_ID,
    name: 'qwen-managed recall',
    description:
      'Bounded, untrusted external context before each user turn, from the deployment’s knowledge base or Mem0 (qwen-managed)',
    version: toolkitVersion,
    activation: { onStartup: true },
    configSchema: OPENCLAW_PLUGIN_CONFIG_SCHEMA as unknown as JsonObject,
  };
}

/** package.json: ES module, the `openclaw` entry, and the plugin API it was built against. */
export function pluginPackageJson(toolkitVersion: string): JsonObject {
  return {
    name: OPENCLAW_PLUGIN_ID,
    version: toolkitVersion,
    private: true,
    type: 'module',
    openclaw: {
      extensions: [`./${OPENCLAW_PLUGIN_PACKAGE.entry}`],
      // requiresToolAuthority exists from this version on: an older host must skip the package.
      compat: { pluginApi: `>=${DEFAULT_OPENCLAW_VERSION}` },
    },
  };
}

/** The managed part of openclaw.json: only this plugin, its hook permissions and timeout, the workspace. */
export function managedOpenclawKeys(deployment: Deployment): JsonObject {
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  return {
    agents: { defaults: { workspace: deployment.repositoryRoot } },
    plugins: {
      enabled: true,
      // Only this plugin loads: bundled and discovered plugins (a repository's .openclaw/extensions,
      // the state directory's extensions) are not on the list.
      allow: [OPENCLAW_PLUGIN_ID],
      load: { paths: [layout.openclawPluginDir] },
      entries: {
        [OPENCLAW_PLUGIN_ID]: {
          enabled: true,
          // Without allowConversationAccess a non-bundled plugin's before_prompt_build silently never runs.
          hooks: {
            allowConversationAccess: true,
            allowPromptInjection: true,
            timeouts: { [OPENCLAW_HOOK]: OPENCLAW_HOOK_TIMEOUT_MS },
          },
          config: { configFile: layout.profileFile(OPENCLAW_PROFILE, OPENCLAW_PROFILE_FILES.providerConfig) },
        },
      },
    },
  };
}

function mergeObjects(base: JsonObject, over: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? mergeObjects(current, value) : value;
  }
  return out;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

/** profiles/openclaw-recall/openclaw.json: the admin's config (keys sorted), the managed keys over it. */
export function openclawConfigFor(deployment: Deployment): JsonObject {
  const admin = sortedKeys(deployment.openclaw?.config ?? {}) as JsonObject;
  return mergeObjects(admin, managedOpenclawKeys(deployment));
}

function includeKeyPaths(value: unknown, at: (string | number)[]): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => includeKeyPaths(item, [...at, i]));
  if (!isPlainObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$include' ? [[...at, key]] : includeKeyPaths(inner, [...at, key]),
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
  problems.push(...openclawConfigProblems(block.config));
  return problems;
}

/**
 * openclaw.json without the managed plugin (what rollback leaves): the id out of `plugins.allow`, its
 * package out of `plugins.load.paths`, its entry out of `plugins.entries`; every other key kept.
 * `plugins.enabled` becomes false: an empty allow list would read as no allow list at all, and
 * discovered plugins (a repository's .openclaw/extensions) could then load.
 */
export function withoutPlugin(config: JsonObject, pluginDir: string): JsonObject {
  const plugins = config['plugins'];
  if (!isPlainObject(plugins)) return config;
  const out: JsonObject = { ...plugins, enabled: false };
  if (Array.isArray(out['allow'])) out['allow'] = out['allow'].filter((id) => id !== OPENCLAW_PLUGIN_ID);
  const load = out['load'];
  if (isPlainObject(load) && Array.isArray(load['paths'])) {
    out['load'] = { ...load, paths: load['paths'].filter((p) => p !== pluginDir) };
  }
  const entries = out['entries'];
  if (isPlainObject(entries) && Object.hasOwn(entries, OPENCLAW_PLUGIN_ID)) {
    const { [OPENCLAW_PLUGIN_ID]: _removed, ...rest } = entries;
    out['entries'] = rest;
  }
  return { ...config, plugins: out };
}

/** The plugin package files under runtime/, by path relative to the install directory. */
export function pluginPackageFiles(
  toolkitVersion: string,
  bundle: Uint8Array,
): Map<string, string | Uint8Array> {
  const rel = (file: string) => `runtime/${OPENCLAW_PLUGIN_PACKAGE.dir}/${file}`;
  return new Map<string, string | Uint8Array>([
    [rel(OPENCLAW_PLUGIN_PACKAGE.manifest), renderJson(pluginManifest(toolkitVersion))],
    [rel(OPENCLAW_PLUGIN_PACKAGE.packageJson), renderJson(pluginPackageJson(toolkitVersion))],
    [rel(OPENCLAW_PLUGIN_PACKAGE.entry), bundle],
  ]);
}

/** profiles/openclaw-recall/launch.json: the pinned Node and OpenClaw, the managed argv, cwd and environment. */
export function openclawLaunchPlanFor(
  deployment: Deployment,
  credentials: ProfileCredentials,
): OpenclawLaunchPlan {
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  const sorted = <T>(record: Readonly<Record<string, T>>) =>
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, record[key]!]),
    );
  return openclawLaunchPlanSchema.parse({
    version: 1,
    profile: OPENCLAW_PROFILE,
    platform: deployment.platform,
    installDir: deployment.installDir,
    installId: installIdFor(deployment.installDir),
    node: deployment.openclaw!.node,
    cli: deployment.openclaw!.cli,
    openclawVersion: DEFAULT_OPENCLAW_VERSION,
    argv: [...openclawVersionFacts(DEFAULT_OPENCLAW_VERSION)!.managedArgv],
    cwd: deployment.repositoryRoot,
    environment: {
      PATH: deployment.environment.PATH,
      inherit: [...deployment.environment.inherit],
      set: sorted(deployment.environment.set),
      files: {
        [OPENCLAW_CONFIG_VARIABLE]: layout.profileFile(OPENCLAW_PROFILE, OPENCLAW_PROFILE_FILES.config),
      },
    },
    credentials: sorted(credentials.all),
  });
}

/** The profile's own files (profiles/openclaw-recall/…), active. */
export function openclawProfileFiles(
  deployment: Deployment,
  credentials: ProfileCredentials,
): Map<string, string> {
  return new Map([
    [OPENCLAW_PROFILE_FILES.config, renderJson(openclawConfigFor(deployment))],
    [OPENCLAW_PROFILE_FILES.providerConfig, renderJson(providerConfigFor(OPENCLAW_PROFILE, deployment))],
    [OPENCLAW_PROFILE_FILES.launchPlan, renderJson(openclawLaunchPlanFor(deployment, credentials))],
  ]);
}
