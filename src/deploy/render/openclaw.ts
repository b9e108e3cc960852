// The openclaw-recall profile's files (docs/openclaw.md): the plugin package under
// runtime/openclaw-recall/ and profiles/openclaw-recall/openclaw.json, the admin's own OpenClaw
// config with the managed keys merged in. Pure: data in, data out.
import { OPENCLAW_HOOK_TIMEOUT_MS } from '../../base/limits.js';
import { OPENCLAW_PROFILE } from '../../contracts/launch-plan.js';
import {
  EXTRA_CA_VARIABLE,
  installIdFor,
  OPENCLAW_CONFIG_VARIABLE,
  OPENCLAW_PLUGIN_PACKAGE,
  OPENCLAW_PROFILE_FILES,
  PinnedLayout,
} from '../../contracts/layout.js';
import { OPENCLAW_PLUGIN_ID } from '../../contracts/names.js';
import { type OpenclawLaunchPlan, openclawLaunchPlanSchema } from '../../contracts/openclaw-launch.js';
import { DEFAULT_OPENCLAW_VERSION, openclawVersionFacts } from '../../openclaw/versions.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import type { ProfileCredentials } from '../deployment/credential-routes.js';
import { OPENCLAW_TOOL_FLOOR } from '../deployment/openclaw.js';
import { providerConfigFor } from '../deployment/provider-config.js';
import type { Deployment } from '../deployment/schema.js';
import { renderJson, sortedKeys } from '../json.js';

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

/**
 * The managed part of openclaw.json: only this plugin, its hook permissions and timeout, the workspace,
 * and the model's tools kept away from OpenClaw's environment (OPENCLAW_TOOL_FLOOR).
 */
export function managedOpenclawKeys(deployment: Deployment): JsonObject {
  const layout = new PinnedLayout(deployment.platform, deployment.installDir);
  return {
    agents: { defaults: { workspace: deployment.repositoryRoot } },
    tools: structuredClone(OPENCLAW_TOOL_FLOOR),
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

/** profiles/openclaw-recall/openclaw.json: the admin's config (keys sorted), the managed keys over it. */
export function openclawConfigFor(deployment: Deployment): JsonObject {
  const admin = sortedKeys(deployment.openclaw?.config ?? {}) as JsonObject;
  return mergeObjects(admin, managedOpenclawKeys(deployment));
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
  const extraCa = deployment.tls?.extraCaCertificates;
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
        // The plugin's provider requests run inside OpenClaw's Node, which reads the CA file at start.
        ...(extraCa === undefined ? {} : { [EXTRA_CA_VARIABLE]: extraCa }),
      },
    },
    credentials: sorted(credentials.all),
    externalContext: { credentials: [...credentials.external].sort() },
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
