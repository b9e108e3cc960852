// The openclaw-recall profile: the plugin package, openclaw.json (only this plugin allowed and
// enabled, the hook permissions it needs, timeouts nested), the launch plan, and — on a machine of
// the profile's platform — the host as the launcher judges it (src/host/openclaw-checks.ts).
import { OPENCLAW_HOOK_TIMEOUT_MS, OPENCLAW_RECALL_BUDGET_MS } from '../../../base/limits.js';
import { parseRuntimeConfig } from '../../../config/load.js';
import { OPENCLAW_PLUGIN_PACKAGE, OPENCLAW_PROFILE_FILES } from '../../../contracts/layout.js';
import { OPENCLAW_PLUGIN_ID } from '../../../contracts/names.js';
import { openclawLaunchPlanSchema } from '../../../contracts/openclaw-launch.js';
import { isPlainObject, type JsonObject } from '../../../text/json.js';
import { OPENCLAW_TOOL_FLOOR, toolFloorKeyPaths } from '../../deployment/openclaw.js';
import { OPENCLAW_HOOK, OPENCLAW_PLUGIN_CONFIG_SCHEMA } from '../../render/openclaw.js';
import type { Checks } from '../report.js';
import type { OpenclawView } from '../view.js';

/** The host, as the launcher's own checks found it here (verify's run.ts): one line per problem. */
export interface OpenclawHostFact {
  /** True on the real install (the tree at its installDir): every launcher check ran, install files included. */
  real: boolean;
  problems: readonly string[];
  /** A staged tree whose pinned Node or OpenClaw is absent here: warned, as host.pins does for Qwen's. */
  warnings?: readonly string[];
}

const PROFILE = 'openclaw-recall' as const;

function obj(value: unknown): JsonObject | undefined {
  return isPlainObject(value) ? value : undefined;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** openclaw.json of an active profile: what the plugin needs, and nothing that loads another. */
export function openclawConfigProblems(config: JsonObject, pluginDir: string, active: boolean): string[] {
  const problems: string[] = [];
  const plugins = obj(config['plugins']) ?? {};
  const entries = obj(plugins['entries']) ?? {};
  const entry = obj(entries[OPENCLAW_PLUGIN_ID]);
  const paths = obj(plugins['load'])?.['paths'];
  // Active or rolled back, OpenClaw's environment holds the model key: its tools stay away from it.
  const tools = obj(config['tools']) ?? {};
  for (const [key, floor] of Object.entries(OPENCLAW_TOOL_FLOOR))
    if (!same(tools[key], floor))
      problems.push(
        `tools.${key} = ${JSON.stringify(tools[key])}: must be ${JSON.stringify(floor)} (the model's tools would reach OpenClaw's environment, the provider token and the model key)`,
      );
  for (const keyPath of toolFloorKeyPaths(config).filter((p) => p[0] !== 'tools'))
    problems.push(
      `${keyPath.join('.')} is set: an agent's own tool settings would undo tools.${keyPath.at(-1)}`,
    );
  if (!active) {
    // Rolled back: plugins off, ours gone from every list, and nothing took its place.
    if (plugins['enabled'] !== false)
      problems.push(
        'plugins.enabled is not false: a rolled-back profile loads no plugin (an empty allow list allows all)',
      );
    if (Array.isArray(plugins['allow']) && plugins['allow'].length > 0)
      problems.push(
        `plugins.allow = ${JSON.stringify(plugins['allow'])}: a rolled-back profile allows no plugin`,
      );
    if (entry !== undefined)
      problems.push(`plugins.entries.${OPENCLAW_PLUGIN_ID} is still there after rollback`);
    if (Array.isArray(paths) && paths.length > 0)
      problems.push(`plugins.load.paths = ${JSON.stringify(paths)}: a rolled-back profile loads no plugin`);
    return problems;
  }
  if (plugins['enabled'] === false)
    problems.push('plugins.enabled is false: OpenClaw loads no plugin at all');
  if (!same(plugins['allow'], [OPENCLAW_PLUGIN_ID]))
    problems.push(
      `plugins.allow = ${JSON.stringify(plugins['allow'])}: must be exactly ["${OPENCLAW_PLUGIN_ID}"] (no other plugin, bundled ones included)`,
    );
  if (plugins['deny'] !== undefined) problems.push('plugins.deny is set: the allow list is the whole policy');
  if (!same(paths, [pluginDir]))
    problems.push(`plugins.load.paths = ${JSON.stringify(paths)}: must be exactly ["${pluginDir}"]`);
  const others = Object.keys(entries).filter((id) => id !== OPENCLAW_PLUGIN_ID);
  if (others.length > 0) problems.push(`plugins.entries has other plugins: ${others.join(', ')}`);
  if (entry === undefined) {
    problems.push(`plugins.entries.${OPENCLAW_PLUGIN_ID} is missing: the plugin is not configured`);
    return problems;
  }
  if (entry['enabled'] !== true) problems.push(`plugins.entries.${OPENCLAW_PLUGIN_ID}.enabled is not true`);
  const hooks = obj(entry['hooks']) ?? {};
  // Measured: without it OpenClaw silently never runs a non-bundled plugin's before_prompt_build.
  if (hooks['allowConversationAccess'] !== true)
    problems.push(
      `plugins.entries.${OPENCLAW_PLUGIN_ID}.hooks.allowConversationAccess is not true: the permission the plugin needs to read the user's turn is missing, and OpenClaw never runs its hook`,
    );
  if (hooks['allowPromptInjection'] === false)
    problems.push(
      `plugins.entries.${OPENCLAW_PLUGIN_ID}.hooks.allowPromptInjection is false: OpenClaw drops the plugin's context`,
    );
  const extra = Object.keys(hooks).filter(
    (key) => !['allowConversationAccess', 'allowPromptInjection', 'timeouts'].includes(key),
  );
  if (extra.length > 0)
    problems.push(`plugins.entries.${OPENCLAW_PLUGIN_ID}.hooks grants more: ${extra.join(', ')}`);
  const grants = Object.keys(entry).filter((key) => !['enabled', 'hooks', 'config'].includes(key));
  if (grants.length > 0)
    problems.push(
      `plugins.entries.${OPENCLAW_PLUGIN_ID} grants more than the hook needs: ${grants.join(', ')}`,
    );
  return problems;
}

/** provider timeoutMs < the plugin's budget < OpenClaw's hook timeout for the plugin. */
export function openclawTimeoutProblems(config: JsonObject, providerTimeoutMs: number | undefined): string[] {
  const entry = obj(obj(obj(config['plugins'])?.['entries'])?.[OPENCLAW_PLUGIN_ID]);
  const timeouts = obj(obj(entry?.['hooks'])?.['timeouts']);
  const host = timeouts?.[OPENCLAW_HOOK];
  const problems: string[] = [];
  if (typeof host !== 'number')
    problems.push(
      `plugins.entries.${OPENCLAW_PLUGIN_ID}.hooks.timeouts.${OPENCLAW_HOOK} is not set: OpenClaw's default would decide (render sets ${OPENCLAW_HOOK_TIMEOUT_MS})`,
    );
  else if (!(host > OPENCLAW_RECALL_BUDGET_MS))
    problems.push(
      `hooks.timeouts.${OPENCLAW_HOOK} = ${host} ms is not above the plugin's own budget of ${OPENCLAW_RECALL_BUDGET_MS} ms: OpenClaw would stop waiting first (render sets ${OPENCLAW_HOOK_TIMEOUT_MS})`,
    );
  if (providerTimeoutMs !== undefined && !(providerTimeoutMs < OPENCLAW_RECALL_BUDGET_MS))
    problems.push(
      `autoRecall.timeoutMs = ${providerTimeoutMs} ms is not below the plugin's budget of ${OPENCLAW_RECALL_BUDGET_MS} ms`,
    );
  return problems;
}

function pluginPackageProblems(view: OpenclawView): string[] {
  const problems: string[] = [];
  const rel = (file: string) => `runtime/${OPENCLAW_PLUGIN_PACKAGE.dir}/${file}`;
  const read = (file: string): JsonObject | undefined => {
    const text = view.tree.files.get(rel(file))?.bytes.toString('utf8');
    if (text === undefined) {
      problems.push(`${rel(file)} is missing`);
      return undefined;
    }
    try {
      const value = obj(JSON.parse(text));
      if (value === undefined) problems.push(`${rel(file)} is not a JSON object`);
      return value;
    } catch {
      problems.push(`${rel(file)} is not valid JSON`);
      return undefined;
    }
  };
  const manifest = read(OPENCLAW_PLUGIN_PACKAGE.manifest);
  if (manifest !== undefined) {
    if (manifest['id'] !== OPENCLAW_PLUGIN_ID)
      problems.push(`${rel('openclaw.plugin.json')}: id is not ${OPENCLAW_PLUGIN_ID}`);
    if (!same(manifest['configSchema'], OPENCLAW_PLUGIN_CONFIG_SCHEMA))
      problems.push(`${rel('openclaw.plugin.json')}: configSchema is not the plugin's`);
  }
  const pkg = read(OPENCLAW_PLUGIN_PACKAGE.packageJson);
  if (
    pkg !== undefined &&
    !same(obj(pkg['openclaw'])?.['extensions'], [`./${OPENCLAW_PLUGIN_PACKAGE.entry}`])
  )
    problems.push(
      `${rel('package.json')}: openclaw.extensions is not ["./${OPENCLAW_PLUGIN_PACKAGE.entry}"]`,
    );
  if (!view.tree.files.has(rel(OPENCLAW_PLUGIN_PACKAGE.entry)))
    problems.push(`${rel(OPENCLAW_PLUGIN_PACKAGE.entry)} is missing`);
  return problems;
}

export function checkOpenclaw(
  view: OpenclawView | undefined,
  host: OpenclawHostFact | undefined,
  checks: Checks,
): void {
  if (view === undefined) return;
  const scope = { profile: PROFILE } as const;
  const active = view.state === 'active';
  const parsedPlan = view.json(OPENCLAW_PROFILE_FILES.launchPlan);
  const plan = parsedPlan?.ok === true ? openclawLaunchPlanSchema.safeParse(parsedPlan.value) : undefined;
  if (plan?.success !== true) {
    checks.add(
      'openclaw.plan',
      { ...scope, file: OPENCLAW_PROFILE_FILES.launchPlan },
      false,
      'launch.json is missing or does not match its schema; re-render',
    );
    return;
  }
  checks.add(
    'openclaw.plan',
    scope,
    true,
    'launch.json pins OpenClaw, its Node, the managed argv and the config file',
  );
  const pluginDir = `${plan.data.installDir}/runtime/${OPENCLAW_PLUGIN_PACKAGE.dir}`;
  const parsed = view.json(OPENCLAW_PROFILE_FILES.config);
  const config = parsed?.ok === true ? obj(parsed.value) : undefined;
  if (config === undefined) {
    checks.add(
      'openclaw.config',
      { ...scope, file: OPENCLAW_PROFILE_FILES.config },
      false,
      'openclaw.json is missing or not a JSON object',
    );
    return;
  }
  checks.expect(
    'openclaw.config',
    { ...scope, file: OPENCLAW_PROFILE_FILES.config },
    openclawConfigProblems(config, pluginDir, active),
    active
      ? 'only the qwen-managed plugin is allowed, loaded and enabled, with exactly the hook permissions it needs'
      : 'rolled back: no plugin is allowed or loaded',
  );
  if (active) {
    let providerTimeout: number | undefined;
    try {
      const text = view.text(OPENCLAW_PROFILE_FILES.providerConfig) ?? '';
      providerTimeout = parseRuntimeConfig(text, 2).autoRecall.timeoutMs;
    } catch {
      checks.add(
        'openclaw.provider',
        { ...scope, file: OPENCLAW_PROFILE_FILES.providerConfig },
        false,
        'external-context.json is not a valid version-2 provider config',
      );
    }
    checks.expect(
      'openclaw.timeouts',
      scope,
      openclawTimeoutProblems(config, providerTimeout),
      `timeouts nest: provider timeoutMs < plugin budget ${OPENCLAW_RECALL_BUDGET_MS} ms < OpenClaw hook timeout`,
    );
    checks.expect(
      'openclaw.plugin',
      scope,
      pluginPackageProblems(view),
      'the plugin package (manifest, package.json, entry) is in place',
    );
  }
  for (const warning of host?.warnings ?? []) checks.add('openclaw.host', scope, false, warning, 'warning');
  if (host !== undefined && (host.warnings ?? []).length === 0)
    checks.expect(
      'openclaw.host',
      scope,
      host.problems,
      host.real
        ? `the launcher would start OpenClaw ${plan.data.openclawVersion}: install files, pins, owners and modes up to /, the OpenClaw package, its Node and argv`
        : `the pinned OpenClaw and Node are supported (${plan.data.openclawVersion}), owned by root or the administrator and not writable by others, up to /`,
    );
}
