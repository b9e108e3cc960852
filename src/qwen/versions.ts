// The per-version facts about Qwen Code (policies/qwen/versions.json): which versions are supported
// and what each one does that render, verify and the launcher depend on. The settings table of a
// version is in ./settings-facts.ts (large, loaded only where needed).
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
  /** The policies/qwen/<dir>/settings.json this version's settings keys are in. */
  settingsFile: string;
  /** `advanced.excludedEnvVars` when no settings scope sets it; setting it replaces this list. */
  defaultExcludedEnvVars: readonly string[];
}

interface VersionEntry {
  settings: string;
  defaultExcludedEnvVars: string[];
}

export const SUPPORTED_QWEN_VERSIONS: readonly string[] = Object.keys(versions.versions);

/** The facts of a supported version, or undefined for any other. */
export function qwenVersionFacts(version: string): QwenVersionFacts | undefined {
  const entry = (versions.versions as Record<string, VersionEntry>)[version];
  if (entry === undefined) return undefined;
  return { version, settingsFile: entry.settings, defaultExcludedEnvVars: entry.defaultExcludedEnvVars };
}

/** The version every deployment is rendered for until a version is pinned per deployment. */
export const DEFAULT_QWEN_VERSION = '0.24.4';
