// Step 4, pure: Qwen's environment, built from nothing. Every variable Qwen (and so every hook and MCP
// server it starts) sees is listed here with where it came from; `plan` shows the same computation.

import type { Platform } from '../src/base/platform.js';
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import { OPTIONAL_PINNED_FILE_VARIABLES, PINNED_FILE_VARIABLES } from '../src/contracts/layout.js';
import { PROVIDER_CONFIG_VARIABLE } from '../src/contracts/names.js';
import { NO_PROXY_VARIABLES, withNoProxyHost } from '../src/policy/broker-env.js';
import {
  dedupeEnvEntries,
  forbiddenReason,
  lookupEnv,
  sameEnvName,
} from '../src/policy/environment-names.js';
import type { EnvironmentPolicy } from '../src/policy/policies.js';
import { type CredentialRoutes, withheldCredential } from '../src/policy/routed-credentials.js';

/** The variables naming the admin-owned files the launcher pins (launch.json `environment.files`). */
export const PINNED_FILE_NAMES: readonly string[] = Object.keys(PINNED_FILE_VARIABLES);
/** Admin-owned files pinned only when the plan names them (the private CA file of deployment.json `tls`). */
export const OPTIONAL_PINNED_FILE_NAMES: readonly string[] = OPTIONAL_PINNED_FILE_VARIABLES;
export const SYSTEM_DEFAULTS_VARIABLE = 'QWEN_CODE_SYSTEM_DEFAULTS_PATH';

export type EnvSource =
  | 'plan-path'
  | 'inherited'
  | 'admin-set'
  | 'credential'
  | 'forced'
  | 'passwd-home'
  | 'pinned-file'
  | 'qwen-home'
  | 'launch-defaults'
  | 'provider-config'
  | 'broker-key'
  | 'broker-no-proxy'
  | 'state-dir';

export interface EnvEntry {
  name: string;
  value: string;
  source: EnvSource;
}

export interface DroppedName {
  name: string;
  from: 'inherit' | 'set' | 'credentials' | 'files';
  reason: string;
}

export interface InheritedName {
  name: string;
  /** Present in the caller's environment right now. */
  present: boolean;
  /** Passed to Qwen (present and not dropped). */
  passed: boolean;
}

export interface EnvOptions {
  /** From the user's passwd entry, never the caller's HOME. */
  home: string;
  /** The per-user, per-profile QWEN_HOME. */
  qwenHome: string;
  /** Credential values by variable name, as read for this launch. */
  credentials: Readonly<Record<string, string>>;
  platform: Platform;
  /** False for a rolled-back profile: no provider config, no provider credentials. */
  externalContextActive: boolean;
  /**
   * The system-defaults layer the launcher writes for this launch (the admin's system defaults plus
   * the `.env` names it keeps out); replaces the admin file as QWEN_CODE_SYSTEM_DEFAULTS_PATH.
   */
  launchDefaults?: string;
}

export interface EnvComputation {
  /** The environment, one entry per variable, later sources having replaced earlier ones. */
  entries: EnvEntry[];
  /** Names the plan asked for that the policy (or a rollback) keeps out. */
  dropped: DroppedName[];
  /** The plan's inherit list, in order, with whether each name is present and passed. */
  inherited: InheritedName[];
}

/** Stands in for every credential value when the decision is only shown (`plan`). */
export const REDACTED = '<redacted>';

/** What the allow-list reads of a launch plan (Qwen's and OpenClaw's have it alike). */
export type AllowListPlan = CredentialRoutes & {
  environment: Pick<LaunchPlan['environment'], 'PATH' | 'inherit' | 'set'>;
};

/**
 * The start of every launch environment, built from nothing: PATH from the plan, the allow-listed
 * caller names present now, the administrator's values, then the routed credentials — each name the
 * policy forbids (or a rolled-back profile's provider credential) dropped, with why.
 */
export function allowListedEntries(
  callerEnv: Readonly<Record<string, string | undefined>>,
  plan: AllowListPlan,
  policy: EnvironmentPolicy,
  options: Pick<EnvOptions, 'credentials' | 'platform' | 'externalContextActive'>,
): EnvComputation {
  const { platform, externalContextActive } = options;
  const entries: EnvEntry[] = [];
  const dropped: DroppedName[] = [];
  const inherited: InheritedName[] = [];
  // The policy wins over the plan: a forbidden name never passes through inherit, set or credentials,
  // whatever launch.json says (the optional CA file below is a pin, not a value). And a
  // rolled-back profile runs without external context: its provider credentials stay out even if
  // the plan also lists them for inheriting or setting.
  const dropReason = (name: string): string | undefined =>
    forbiddenReason(name, policy, platform) ??
    (withheldCredential(plan, name, externalContextActive, platform)
      ? 'a provider credential of a rolled-back profile'
      : undefined);

  // Like sudo's secure_path: the caller's PATH would decide which `bash` runs every hook.
  entries.push({ name: 'PATH', value: plan.environment.PATH, source: 'plan-path' });

  for (const name of plan.environment.inherit) {
    const value = lookupEnv(callerEnv, name, platform);
    const reason = dropReason(name);
    if (reason !== undefined) dropped.push({ name, from: 'inherit', reason });
    const passed = reason === undefined && value !== undefined;
    inherited.push({ name, present: value !== undefined, passed });
    if (passed) entries.push({ name, value, source: 'inherited' });
  }

  // Administrator values come after inherited ones, so they win over the caller's.
  for (const [name, value] of Object.entries(plan.environment.set)) {
    const reason = dropReason(name);
    if (reason !== undefined) dropped.push({ name, from: 'set', reason });
    else entries.push({ name, value, source: 'admin-set' });
  }

  for (const name of Object.keys(plan.credentials)) {
    const reason = dropReason(name);
    if (reason !== undefined) {
      dropped.push({ name, from: 'credentials', reason });
      continue;
    }
    const value = lookupEnv(options.credentials, name, platform);
    if (value !== undefined) entries.push({ name, value, source: 'credential' });
  }

  return { entries, dropped, inherited };
}

/** Every variable with its source; `buildEnv` is exactly this, as a record. */
export function computeEnv(
  callerEnv: Readonly<Record<string, string | undefined>>,
  plan: LaunchPlan,
  policy: EnvironmentPolicy,
  options: EnvOptions,
): EnvComputation {
  const { platform, externalContextActive } = options;
  const { entries, dropped, inherited } = allowListedEntries(callerEnv, plan, policy, options);

  // With a credential broker the session holds no secret: each variable a runtime reads its
  // credential from gets the broker's public key (the broker swaps in the real one).
  if (plan.broker !== undefined) {
    for (const name of plan.broker.keyVariables) {
      if (withheldCredential(plan, name, externalContextActive, platform)) continue;
      entries.push({ name, value: plan.broker.key, source: 'broker-key' });
    }
    // Proxy variables never capture the loopback traffic to the broker.
    for (const name of NO_PROXY_VARIABLES) {
      const current = dedupeEnvEntries(entries, platform).find((e) => sameEnvName(e.name, name, platform));
      entries.push({
        name,
        value: withNoProxyHost(current?.value, plan.broker.host),
        source: 'broker-no-proxy',
      });
    }
  }

  // The launcher's own values come last, so nothing above can override them.
  for (const [name, value] of Object.entries(policy.forced)) entries.push({ name, value, source: 'forced' });
  entries.push({ name: 'HOME', value: options.home, source: 'passwd-home' });
  // NODE_EXTRA_CA_CERTS is dropped above (a caller's CA could intercept traffic) and reaches Qwen only
  // from here, as a file loadPins checked.
  const fileNames = [...PINNED_FILE_NAMES, ...OPTIONAL_PINNED_FILE_NAMES];
  for (const name of fileNames) {
    const file = lookupEnv(plan.environment.files, name, platform);
    if (file === undefined) continue;
    // The launcher's own defaults layer is built from the admin file and stands in for it.
    if (name === SYSTEM_DEFAULTS_VARIABLE && options.launchDefaults !== undefined) {
      entries.push({ name, value: options.launchDefaults, source: 'launch-defaults' });
    } else entries.push({ name, value: file, source: 'pinned-file' });
  }
  for (const name of Object.keys(plan.environment.files)) {
    // Only the admin files (and the optional CA file) are pinned by variable; any other name is not the plan's to add.
    if (!fileNames.some((pinned) => sameEnvName(pinned, name, platform))) {
      dropped.push({ name, from: 'files', reason: 'not a file variable the launcher pins' });
    }
  }
  entries.push({ name: 'QWEN_HOME', value: options.qwenHome, source: 'qwen-home' });
  // The same directory as QWEN_HOME, so neither a ~/.env nor a settings file can move Qwen's
  // prompt logs and project data (QWEN_RUNTIME_DIR wins over advanced.runtimeOutputDir) elsewhere.
  entries.push({ name: 'QWEN_RUNTIME_DIR', value: options.qwenHome, source: 'qwen-home' });
  if (externalContextActive) {
    entries.push({
      name: PROVIDER_CONFIG_VARIABLE,
      value: plan.externalContext.configFile,
      source: 'provider-config',
    });
  }
  return { entries: dedupeEnvEntries(entries, platform), dropped, inherited };
}

/**
 * Qwen's complete environment: PATH from the plan; allow-listed caller names (never a forbidden one);
 * the administrator's values; the profile's credentials; the forced values; HOME from passwd; the
 * pinned admin files (and the CA file when the plan pins one); QWEN_HOME; the provider config while
 * the profile is active.
 */
export function buildEnv(
  callerEnv: Readonly<Record<string, string | undefined>>,
  plan: LaunchPlan,
  policy: EnvironmentPolicy,
  options: EnvOptions,
): Record<string, string> {
  return envRecord(computeEnv(callerEnv, plan, policy, options).entries);
}

/** The entries as the environment block execve gets. */
export function envRecord(entries: readonly EnvEntry[]): Record<string, string> {
  // No prototype: a variable named `__proto__` or `constructor` is just a variable.
  const env: Record<string, string> = Object.create(null);
  for (const entry of entries) env[entry.name] = entry.value;
  return env;
}
