// The policies in `policies/*.json`, typed. Render, verify and the launcher all read these same
// files (bundled into each program at build time), so one edit changes all three.
import argumentsPolicy from '../../policies/arguments.json' with { type: 'json' };
import environmentPolicy from '../../policies/environment.json' with { type: 'json' };
import settingsBaseline from '../../policies/settings-baseline.json' with { type: 'json' };

export interface EnvironmentPolicy {
  forbidden: { names: readonly string[]; prefixes: readonly string[]; why: Readonly<Record<string, string>> };
  forced: Readonly<Record<string, string>>;
  pinned: readonly string[];
  /** Cleared by the bin/ shims before the pinned node starts (node and the loader read them first). */
  prestart: readonly string[];
}

export interface ArgumentPolicy {
  managed: { all: readonly string[]; mcpConfigFlag: string };
  allowedFlags: Readonly<Record<string, { values?: readonly string[]; absolutePath?: boolean }>>;
  refusedFlags: Readonly<Record<string, string>>;
  refusedFlagPrefixes: Readonly<Record<string, string>>;
  refusedSubcommands: readonly string[];
}

export interface SettingsBaselinePolicy {
  baseline: Readonly<Record<string, unknown>>;
  unionLists: readonly string[];
  reservedKeys: readonly string[];
}

export const ENVIRONMENT_POLICY: EnvironmentPolicy = environmentPolicy;
export const ARGUMENT_POLICY: ArgumentPolicy = argumentsPolicy;
export const SETTINGS_BASELINE: SettingsBaselinePolicy = settingsBaseline;
