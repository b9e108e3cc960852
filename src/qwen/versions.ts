// The per-version facts about Qwen Code (policies/qwen/): which versions are supported and what
// each one's settings are (type, merge strategy, enum), extracted from Qwen's own schema.
import settings0244 from '../../policies/qwen/0.24.4/settings.json' with { type: 'json' };
import versions from '../../policies/qwen/versions.json' with { type: 'json' };

export interface SettingFact {
  type: string;
  /** How Qwen merges the key across settings scopes when not by replacement. */
  merge?: 'concat' | 'union' | 'shallow_merge';
  enum?: readonly unknown[];
  min?: number;
  max?: number;
}

export interface QwenVersionFacts {
  version: string;
  /** Every settings key of this version, dotted. */
  settings: Readonly<Record<string, SettingFact>>;
  /** `advanced.excludedEnvVars` when no settings scope sets it; setting it replaces this list. */
  defaultExcludedEnvVars: readonly string[];
}

const SETTINGS: Readonly<Record<string, Readonly<Record<string, SettingFact>>>> = {
  '0.24.4': settings0244.settings as Record<string, SettingFact>,
};

export const SUPPORTED_QWEN_VERSIONS: readonly string[] = Object.keys(versions.versions);

/** The facts of a supported version, or undefined for any other. */
export function qwenVersionFacts(version: string): QwenVersionFacts | undefined {
  const entry = (versions.versions as Record<string, { settings: string; defaultExcludedEnvVars: string[] }>)[
    version
  ];
  const settings = entry === undefined ? undefined : SETTINGS[entry.settings];
  if (entry === undefined || settings === undefined) return undefined;
  return { version, settings, defaultExcludedEnvVars: entry.defaultExcludedEnvVars };
}

/** The version every deployment is rendered for until a version is pinned per deployment. */
export const DEFAULT_QWEN_VERSION = '0.24.4';
