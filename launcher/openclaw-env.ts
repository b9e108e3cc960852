// Step 4 for OpenClaw, pure: its environment, built from nothing like Qwen's (env.ts). Every variable
// OpenClaw (and so the plugin, and every program OpenClaw starts) sees is listed with where it came
// from; `plan` shows the same computation.
import type { Platform } from '../src/base/platform.js';
import { EXTRA_CA_VARIABLE, OPENCLAW_CONFIG_VARIABLE } from '../src/contracts/layout.js';
import type { OpenclawLaunchPlan } from '../src/contracts/openclaw-launch.js';
import { dedupeEnvEntries, lookupEnv, sameEnvName } from '../src/policy/environment-names.js';
import type { EnvironmentPolicy } from '../src/policy/policies.js';
import { allowListedEntries, type EnvComputation } from './env.js';

/** OpenClaw's per-user state directory (sessions, transcripts, its databases), pinned by the launcher. */
export const OPENCLAW_STATE_VARIABLE = 'OPENCLAW_STATE_DIR';

/** The file variables an OpenClaw plan may pin: its config file, and the CA file when the deployment names one. */
const OPENCLAW_FILE_VARIABLES: readonly string[] = [OPENCLAW_CONFIG_VARIABLE, EXTRA_CA_VARIABLE];

export interface OpenclawEnvOptions {
  /** From the user's passwd entry, never the caller's HOME. */
  home: string;
  /** The per-user, per-install, per-profile state directory. */
  stateDir: string;
  /** Credential values by variable name, as read for this launch. */
  credentials: Readonly<Record<string, string>>;
  platform: Platform;
  /** False for a rolled-back profile: no provider credentials. */
  externalContextActive: boolean;
  /** The pinned OpenClaw version's own settings (policies/openclaw/versions.json `environment`). */
  versionEnvironment: Readonly<Record<string, string>>;
}

/**
 * OpenClaw's complete environment: the allow-list (PATH, inherited names, the administrator's values,
 * the routed credentials); then, so that nothing above overrides them, the forced values, HOME from
 * passwd, the pinned config file (and CA file), the state directory and the version's own settings.
 * No OPENCLAW_* name ever comes from the caller or the plan: the policy forbids the whole prefix.
 */
export function computeOpenclawEnv(
  callerEnv: Readonly<Record<string, string | undefined>>,
  plan: OpenclawLaunchPlan,
  policy: EnvironmentPolicy,
  options: OpenclawEnvOptions,
): EnvComputation {
  const { platform } = options;
  const { entries, dropped, inherited } = allowListedEntries(callerEnv, plan, policy, options);
  // The shell settings among them keep every command OpenClaw's tools run in bash as plain as a hook's.
  for (const [name, value] of Object.entries(policy.forced)) entries.push({ name, value, source: 'forced' });
  entries.push({ name: 'HOME', value: options.home, source: 'passwd-home' });
  for (const name of OPENCLAW_FILE_VARIABLES) {
    const file = lookupEnv(plan.environment.files, name, platform);
    if (file !== undefined) entries.push({ name, value: file, source: 'pinned-file' });
  }
  for (const name of Object.keys(plan.environment.files)) {
    if (!OPENCLAW_FILE_VARIABLES.some((pinned) => sameEnvName(pinned, name, platform)))
      dropped.push({ name, from: 'files', reason: 'not a file variable the launcher pins' });
  }
  entries.push({ name: OPENCLAW_STATE_VARIABLE, value: options.stateDir, source: 'state-dir' });
  for (const [name, value] of Object.entries(options.versionEnvironment))
    entries.push({ name, value, source: 'forced' });
  return { entries: dedupeEnvEntries(entries, platform), dropped, inherited };
}
