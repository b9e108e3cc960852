// What the repository (and the user's home) may carry into a managed Qwen session — the rules the
// launcher applies before Qwen starts and `qwen-managed plan` shows (policies/repository.json,
// docs/repository.md). Pure: the caller reads the files; these functions decide.
//
// The class rule: no variable from a file Qwen loads reaches Qwen's environment unless the
// administrator allowed its name (`environment.fromFiles`), and no repository setting can add
// hooks, approvals, MCP servers, environment, directories or a system prompt.
import repositoryPolicy from '../../policies/repository.json' with { type: 'json' };
import type { Platform } from '../base/platform.js';
import type { EnvFile } from '../qwen/env-files.js';
import { matchesNamePattern } from '../qwen/env-files.js';
import { selectorAuthType } from '../qwen/model-selector.js';
import type { SettingFact } from '../qwen/versions.js';
import { isPlainObject, type JsonObject } from '../text/json.js';
import { lookupEnv } from './environment-names.js';

export interface RepositoryPolicy {
  paths: { specialRoots: readonly string[]; maxLinkHops: number; maxWalkEntries: number };
  envFiles: { maxBytes: number };
  workspaceSettings: {
    allowed: readonly string[];
    refused: Readonly<Record<string, string>>;
    /** Allowed keys whose value Qwen makes part of a path it loads: it must match `pattern`. */
    values: Readonly<Record<string, { pattern: string; why: string }>>;
    /** A string anywhere in an allowed value that Qwen would fill from its environment refuses. */
    variables: { pattern: string; why: string };
    neutralised: Readonly<Record<string, string>>;
  };
  agents: { privilegedKeys: readonly string[] };
}

export const REPOSITORY_POLICY: RepositoryPolicy = repositoryPolicy;

/** One thing that refuses the launch: the file, the variable or key, why, and the fix. */
export interface Refusal {
  file: string;
  /** A variable name, or a dotted settings key, or an agent front-matter key. */
  key: string;
  why: string;
  fix: string;
}

export interface EnvFileContent {
  file: EnvFile;
  /** The variables the file defines, as Qwen's dotenv parser reads them. */
  names: readonly string[];
}

export interface EnvFileDecision {
  /** Names from plain `.env` files kept out through `advanced.excludedEnvVars` (sorted). */
  excluded: string[];
  /** Names Qwen will take from a file because the administrator allowed them. */
  allowed: Array<{ name: string; file: string }>;
  refused: Refusal[];
}

export interface EnvRuleContext {
  /** Qwen's environment as the launcher built it (before Qwen reads any file). */
  env: Readonly<Record<string, string | undefined>>;
  /** deployment.json `environment.fromFiles`: names or `PREFIX*`. */
  fromFiles: readonly string[];
  platform: Platform;
}

const FIX_ALLOW = 'or ask the administrator to allow the name in environment.fromFiles';

function allowedName(name: string, context: EnvRuleContext): boolean {
  return context.fromFiles.some((pattern) => matchesNamePattern(name, pattern, context.platform));
}

/** Qwen fills a variable from a file only when it is unset or empty (measured). */
function alreadyPinned(name: string, context: EnvRuleContext): boolean {
  const value = lookupEnv(context.env, name, context.platform);
  return value !== undefined && value !== '';
}

/**
 * Decides every variable of the files Qwen loads. A plain `.env` never refuses: its names are kept
 * out through `advanced.excludedEnvVars` (they stay unset, so the application's own dotenv still
 * reads them). Qwen ignores that list for `.qwen/.env` and home files, so a name there that is
 * neither allowed nor already pinned by the launcher cannot be kept out: it refuses the launch.
 */
export function decideEnvFiles(
  contents: readonly EnvFileContent[],
  context: EnvRuleContext,
): EnvFileDecision {
  const excluded = new Set<string>();
  const allowed: EnvFileDecision['allowed'] = [];
  const refused: Refusal[] = [];
  for (const { file, names } of contents) {
    for (const name of names) {
      if (allowedName(name, context)) {
        allowed.push({ name, file: file.path });
        continue;
      }
      if (file.scope === 'project') {
        excluded.add(name);
        continue;
      }
      if (alreadyPinned(name, context)) continue;
      refused.push({
        file: file.path,
        key: name,
        why:
          file.scope === 'home'
            ? 'Qwen loads this file into its environment in every folder'
            : 'Qwen loads this file into its environment, whatever advanced.excludedEnvVars says',
        fix: `remove ${name} from the file, ${FIX_ALLOW}`,
      });
    }
  }
  return { excluded: [...excluded].sort(), allowed, refused };
}

export interface WorkspaceSettingsContext extends EnvRuleContext {
  file: string;
  /** The profile's managed system settings (they win over workspace settings for replaced keys). */
  system: JsonObject;
  /** The pinned Qwen version's settings keys. */
  facts: Readonly<Record<string, SettingFact>>;
  /** The settings format the pinned Qwen writes (`$version`); a file in any other is migrated. */
  settingsVersion: number;
  policy?: RepositoryPolicy['workspaceSettings'];
}

function underAny(path: string, prefixes: Iterable<string>): string | undefined {
  for (const prefix of prefixes) if (path === prefix || path.startsWith(`${prefix}.`)) return prefix;
  return undefined;
}

/** The keys at and below `path` holding a string (or an array of strings) that matches `pattern`. */
function stringsMatching(value: unknown, path: string, pattern: RegExp): string[] {
  if (typeof value === 'string') return pattern.test(value) ? [path] : [];
  if (Array.isArray(value))
    return value.some((item) => stringsMatching(item, path, pattern).length > 0) ? [path] : [];
  if (!isPlainObject(value)) return [];
  return Object.keys(value).flatMap((key) => stringsMatching(value[key], `${path}.${key}`, pattern));
}

function systemLeaf(system: JsonObject, path: string): boolean {
  let node: unknown = system;
  for (const part of path.split('.')) {
    if (!isPlainObject(node) || !Object.hasOwn(node, part)) return false;
    node = node[part];
  }
  return true;
}

/** True when the schema declares keys below `path` (so its object value is walked, not replaced). */
function hasDeclaredChildren(path: string, facts: Readonly<Record<string, SettingFact>>): boolean {
  const prefix = `${path}.`;
  return Object.keys(facts).some((key) => key.startsWith(prefix));
}

/**
 * Every key of the repository's `.qwen/settings.json` (Qwen merges it only in a trusted folder)
 * that could change the managed contract refuses the launch: keys Qwen merges additively (hooks,
 * permissions, MCP lists, include directories, …) can never be overridden by the system settings.
 * Allowed keys (display, editor, context-file names) pass; keys the managed system settings pin
 * are inert (system settings win); keys Qwen does not know are ignored by it; `env` entries follow
 * the environment-file rule.
 */
export function decideWorkspaceSettings(settings: unknown, context: WorkspaceSettingsContext): Refusal[] {
  const policy = context.policy ?? REPOSITORY_POLICY.workspaceSettings;
  // Compiled once per file, not per allowed key.
  const variables = new RegExp(policy.variables.pattern, 'u');
  const refused: Refusal[] = [];
  const refuse = (key: string, why: string): void => {
    refused.push({
      file: context.file,
      key,
      why,
      fix: `remove ${key} from the file (Qwen merges a trusted repository's settings into the managed ones)`,
    });
  };
  if (!isPlainObject(settings)) return refused;
  // Qwen migrates a file whose `$version` is not its own (or absent) when it loads it, and its
  // migrations turn old-format keys into current ones (allowedTools into an allow rule, measured on
  // 0.24.4): only in a file of its own format is a key it does not know ignored.
  const migrated = settings['$version'] !== context.settingsVersion;

  const visit = (object: JsonObject, prefix: string): void => {
    for (const key of Object.keys(object)) {
      const path = prefix === '' ? key : `${prefix}.${key}`;
      const value = object[key];
      const explicit = underAny(path, Object.keys(policy.refused));
      if (explicit !== undefined) {
        refuse(path, policy.refused[explicit]!);
        continue;
      }
      if (underAny(path, policy.allowed) !== undefined) {
        // An allowed key may still name a file Qwen loads as code (general.language): judge its value.
        const rule = Object.hasOwn(policy.values, path) ? policy.values[path] : undefined;
        if (rule !== undefined && !(typeof value === 'string' && new RegExp(rule.pattern, 'u').test(value))) {
          refuse(path, rule.why);
          continue;
        }
        // An allowed family may still hold a refused key (ui.statusLine under ui): look inside.
        const refusedBelow = Object.keys(policy.refused).some((key) => key.startsWith(`${path}.`));
        if (refusedBelow && isPlainObject(value)) {
          visit(value, path);
          continue;
        }
        // Qwen fills $VAR and ${VAR} in every settings string from its environment (credentials too).
        for (const key of stringsMatching(value, path, variables)) refuse(key, policy.variables.why);
        continue;
      }
      if (underAny(path, Object.keys(policy.neutralised)) !== undefined) continue;
      if (path === 'env') {
        if (!isPlainObject(value)) continue;
        for (const name of Object.keys(value)) {
          if (typeof value[name] !== 'string' || allowedName(name, context) || alreadyPinned(name, context)) {
            continue;
          }
          refused.push({
            file: context.file,
            key: `env.${name}`,
            why: 'Qwen fills its environment from settings env, whatever advanced.excludedEnvVars says',
            fix: `remove env.${name} from the file, ${FIX_ALLOW}`,
          });
        }
        continue;
      }
      const fact = context.facts[path];
      if (fact === undefined) {
        // Qwen ignores keys its schema does not know (measured) — once the file is in its format.
        if (migrated && path !== '$version') {
          refused.push({
            file: context.file,
            key: path,
            why: `Qwen migrates a settings file whose "$version" is not ${context.settingsVersion}, and turns old-format keys into current ones (allowedTools, coreTools and allowMCPServers into approval and MCP rules)`,
            fix: `remove ${path} from the file, or write it in the current format with "$version": ${context.settingsVersion}, where Qwen ignores keys it does not know`,
          });
        }
        continue;
      }
      if (fact.merge !== undefined) {
        refuse(
          path,
          `Qwen adds it to the managed settings (${fact.merge.replace('_', ' ')}); the system settings cannot take it away`,
        );
        continue;
      }
      if (isPlainObject(value) && fact.type === 'object' && hasDeclaredChildren(path, context.facts)) {
        visit(value, path);
        continue;
      }
      // Replaced as a whole: the managed system settings win where they set the same key.
      if (systemLeaf(context.system, path)) continue;
      refuse(path, 'it can change the managed session, and the managed system settings do not pin it');
    }
  };
  visit(settings, '');
  return refused;
}

/** What the launcher reads from a project agent's front matter. */
export interface AgentFrontMatter {
  /** Every top-level key Qwen could read. */
  keys: readonly string[];
  /** Every model selector Qwen could read (`model`, the legacy `modelConfig.model`). */
  models: readonly string[];
}

/**
 * Project agents whose front matter holds a privileged key refuse the launch, and so does a model
 * selector naming an auth type other than the session's: Qwen 0.24.4 builds such a subagent its own
 * model client from that auth type's environment variables, else its SDK's default origin
 * (measured: `openai-responses:gpt-5` sent the subagent's task, with the session's OPENAI_API_KEY,
 * to api.openai.com; `security.auth.enforcedType` is checked for the main session only).
 */
export function decideAgent(
  file: string,
  front: AgentFrontMatter,
  session: { authType: string | undefined; authTypes: readonly string[] },
): Refusal[] {
  const privileged = new Set(REPOSITORY_POLICY.agents.privilegedKeys);
  const refused: Refusal[] = front.keys
    .filter((key) => privileged.has(key))
    .map((key) => ({
      file,
      key,
      why: 'in a trusted folder Qwen registers a project agent’s hooks, MCP servers, executors and approval mode',
      fix: `remove ${key} from the agent’s front matter`,
    }));
  for (const model of new Set(front.models)) {
    const authType = selectorAuthType(model, session.authTypes);
    if (authType === undefined || authType === session.authType) continue;
    refused.push({
      file,
      key: 'model',
      why: `${JSON.stringify(model)} names the auth type ${authType}, not the session's ${session.authType ?? '(none pinned)'}: Qwen 0.24.4 gives such a subagent its own model client, sent to ${authType}'s own environment variables or its SDK's default origin with the whole task, never to the managed model`,
      fix: "remove the auth type from the selector (write the model id alone), or remove model from the agent's front matter",
    });
  }
  return refused;
}

/** One line per refusal, as the launcher and `plan` print them. */
export function refusalLine(refusal: Refusal): string {
  return `${refusal.file}: ${refusal.key}: ${refusal.why}; fix: ${refusal.fix}`;
}

/**
 * The launch's system-defaults layer: the administrator's system defaults with
 * `advanced.excludedEnvVars` set to Qwen's own default list plus every name kept out. Setting the
 * list replaces Qwen's default, so the default names stay in it.
 */
export function launchDefaultsSettings(
  adminDefaults: JsonObject,
  excluded: readonly string[],
  qwen: { defaultExcludedEnvVars: readonly string[]; settingsVersion: number },
): JsonObject {
  const advanced = isPlainObject(adminDefaults.advanced) ? adminDefaults.advanced : {};
  const names = [...new Set([...qwen.defaultExcludedEnvVars, ...excluded])];
  // In Qwen's own format, so it never migrates (and rewrites) the layer.
  return {
    ...adminDefaults,
    $version: qwen.settingsVersion,
    advanced: { ...advanced, excludedEnvVars: names },
  };
}
