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
  /** The JSON types Qwen accepts when its schema declares a union (`context.fileName`: string or array). */
  anyOf?: readonly string[];
}

/** The unit Qwen reads a command hook's `timeout` in (0.24.x: seconds; 1000 or more is legacy ms). */
export type HookTimeoutUnit = 'seconds' | 'milliseconds';

/** Defects of the package as the registry serves it, which verify reports with their fix. */
export type PackagingDefect = 'ripgrep-not-executable';

/** One model client Qwen builds for a `security.auth.selectedType` (what the credential broker fronts). */
export interface ModelClientFact {
  /** The environment variable Qwen reads the key from; it beats `security.auth.apiKey`. */
  keyVariable: string;
  /** The environment variable that beats `security.auth.baseUrl`. */
  baseUrlVariable: string;
  credentialHeader: { name: string; prefix: string };
  /** Every request the client makes, the path relative to the base URL's path. */
  routes: ReadonlyArray<{ method: 'GET' | 'POST'; path: string }>;
  /**
   * The request headers the client sends (lower case) besides the credential and the ones the broker
   * sets itself: all the model listener forwards of a caller's.
   */
  callerHeaders: readonly string[];
}

interface VersionEntry {
  /** The policies/qwen/<dir>/settings.json this version's settings keys are in. */
  settings: string;
  /**
   * The settings format this version writes (`$version`, measured: SETTINGS_VERSION in its bundle). A
   * file with any other `$version`, or none, is migrated when Qwen loads it, old-format keys included.
   */
  settingsVersion: number;
  /** `advanced.excludedEnvVars` when no settings scope sets it; setting it replaces this list. */
  defaultExcludedEnvVars: readonly string[];
  hookTimeoutUnit: HookTimeoutUnit;
  /**
   * The package's `engines.node` as published (measured): what verify judges a pinned node by where
   * no Qwen package is there to read (render, verify and the launcher read the package's own).
   */
  nodeEngines: string;
  /**
   * Files (path relative to QWEN_HOME, `/`-separated → content) the launcher writes into a Qwen home
   * whose top-level directory of that path does not exist yet: the empty extension store Qwen would
   * otherwise create at its first start, while its extension watcher already runs — which prints
   * "Extensions changed on disk. Run /reload-plugins" to the developer (measured on every 0.24.x).
   */
  qwenHomeSeed: Readonly<Record<string, string>>;
  /** The vendored ripgrep Qwen runs, relative to the package (`{arch}`/`{platform}` as in Node). */
  ripgrep: string;
  packagingDefects: readonly PackagingDefect[];
  /** By `security.auth.selectedType`: the model clients the credential broker can front. */
  modelClients: Readonly<Record<string, ModelClientFact>>;
}

export interface QwenVersionFacts extends Omit<VersionEntry, 'settings'> {
  version: string;
  settingsFile: string;
}

// test/unit/qwen/versions.test.ts checks every entry against these types (JSON imports widen them).
const VERSIONS = versions.versions as unknown as Readonly<Record<string, VersionEntry>>;

export const SUPPORTED_QWEN_VERSIONS: readonly string[] = Object.keys(VERSIONS);

/** The facts of a supported version, or undefined for any other. */
export function qwenVersionFacts(version: string): QwenVersionFacts | undefined {
  if (!Object.hasOwn(VERSIONS, version)) return undefined;
  const { settings, ...facts } = VERSIONS[version]!;
  return { version, settingsFile: settings, ...facts };
}

/** The version every deployment is rendered for until a version is pinned per deployment. */
export const DEFAULT_QWEN_VERSION = '0.24.4';

/**
 * The facts of the pinned Qwen `version` (the package's own, when known), or of the default version
 * for none or one this toolkit does not support (the host checks refuse that one).
 */
export function pinnedQwenFacts(version: string | undefined): QwenVersionFacts {
  return qwenVersionFacts(version ?? DEFAULT_QWEN_VERSION) ?? qwenVersionFacts(DEFAULT_QWEN_VERSION)!;
}

/** A command hook's `timeout` value, in the unit this Qwen version reads, for a budget in ms. */
export function hookTimeoutValue(facts: Pick<QwenVersionFacts, 'hookTimeoutUnit'>, ms: number): number {
  return facts.hookTimeoutUnit === 'seconds' ? Math.ceil(ms / 1000) : ms;
}

/** The vendored ripgrep's path inside the package, for this platform and architecture. */
export function ripgrepRel(facts: Pick<QwenVersionFacts, 'ripgrep'>, platform: string, arch: string): string {
  const rel = facts.ripgrep.replaceAll('{arch}', arch).replaceAll('{platform}', platform);
  return platform === 'win32' ? `${rel}.exe` : rel;
}
