// The rendered install layout (docs/contracts.md, "Rendered install directory"): relative paths inside
// the tree (always `/`-separated, as listed in manifest.json) and the absolute pinned paths the
// rendered files refer to (joined for the deployment's platform, never the renderer's).

import { sha256Hex } from '../base/hash.js';
import { type Platform, pathFunctions, pathSeparator } from '../base/platform.js';
import type { AnyProfileKind, ProfileKind } from './launch-plan.js';
import { RUNTIME_CODE_CACHES, RUNTIME_FILES, RUNTIME_MODULE_MARKER } from './runtime-files.js';

export const PROFILE_FILES = {
  systemSettings: 'system-settings.json',
  systemDefaults: 'system-defaults.json',
  trustedFolders: 'trusted-folders.json',
  providerConfig: 'external-context.json',
  mcpConfig: 'mcp.json',
  launchPlan: 'launch.json',
  /** Written by rollback only: what it removed, so a later render reproduces the rolled-back files. */
  rollbackRecord: 'rollback.json',
} as const;

/** The files of the openclaw-recall profile, under profiles/openclaw-recall/. */
export const OPENCLAW_PROFILE_FILES = {
  /** OPENCLAW_CONFIG_PATH: the admin's OpenClaw config with the managed plugin keys merged in. */
  config: 'openclaw.json',
  providerConfig: PROFILE_FILES.providerConfig,
  /** What a managed OpenClaw session runs (src/contracts/openclaw-launch.ts). */
  launchPlan: PROFILE_FILES.launchPlan,
  /** Written by rollback only, as for the Qwen profiles. */
  rollbackRecord: PROFILE_FILES.rollbackRecord,
} as const;

/** The variable OpenClaw reads its one config file from: the launcher pins it to the profile's openclaw.json. */
export const OPENCLAW_CONFIG_VARIABLE = 'OPENCLAW_CONFIG_PATH';

/**
 * The OpenClaw plugin package render writes under runtime/: OpenClaw loads it from this directory
 * (`plugins.load.paths`), reading the manifest, then package.json's `openclaw.extensions` entry.
 */
export const OPENCLAW_PLUGIN_PACKAGE = {
  dir: 'openclaw-recall',
  manifest: 'openclaw.plugin.json',
  packageJson: 'package.json',
  entry: 'index.mjs',
} as const;

/** The environment variables the launcher pins to admin-owned files of the profile. */
export const PINNED_FILE_VARIABLES = {
  QWEN_CODE_SYSTEM_SETTINGS_PATH: PROFILE_FILES.systemSettings,
  QWEN_CODE_SYSTEM_DEFAULTS_PATH: PROFILE_FILES.systemDefaults,
  QWEN_CODE_TRUSTED_FOLDERS_PATH: PROFILE_FILES.trustedFolders,
} as const;

/**
 * The private certificate authorities Node trusts besides its own (deployment.json `tls`). Pinned like
 * the admin files, but only when the deployment asks for it, and to a file outside the tree: the
 * administrator rotates the CA without a re-render.
 */
export const EXTRA_CA_VARIABLE = 'NODE_EXTRA_CA_CERTS';
/** Pinned-file variables a launch plan may hold besides the required three. */
export const OPTIONAL_PINNED_FILE_VARIABLES: readonly string[] = [EXTRA_CA_VARIABLE];

/** launch.json `environment.files` of a profile: the three admin files, then the CA file when pinned. */
export function pinnedFiles(
  layout: PinnedLayout,
  kind: ProfileKind,
  extraCaCertificates: string | undefined,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const [variable, file] of Object.entries(PINNED_FILE_VARIABLES))
    files[variable] = layout.profileFile(kind, file);
  if (extraCaCertificates !== undefined) files[EXTRA_CA_VARIABLE] = extraCaCertificates;
  return files;
}

export const BIN_FILES: Readonly<Record<Platform, readonly string[]>> = {
  posix: ['launch-qwen'],
  windows: ['launch-qwen.ps1', 'launch-qwen.cmd'],
};

/** Profiles whose Qwen gets the external-context MCP server (`--mcp-config`). */
export function usesMcp(kind: ProfileKind): boolean {
  return kind !== 'auto-recall';
}

/** The files render writes for an active profile, in tree order. */
export function renderedProfileFiles(kind: ProfileKind): string[] {
  const files: string[] = [
    PROFILE_FILES.systemSettings,
    PROFILE_FILES.systemDefaults,
    PROFILE_FILES.trustedFolders,
    PROFILE_FILES.providerConfig,
  ];
  if (usesMcp(kind)) files.push(PROFILE_FILES.mcpConfig);
  files.push(PROFILE_FILES.launchPlan);
  return files;
}

export function profileRel(kind: AnyProfileKind, file: string): string {
  return `profiles/${kind}/${file}`;
}

export function runtimeRel(file: string): string {
  return `runtime/${file}`;
}

/** Every runtime file of the install, module marker and code caches included. */
export function runtimeFileNames(): string[] {
  return [
    ...Object.values(RUNTIME_FILES),
    RUNTIME_MODULE_MARKER.file,
    ...Object.values(RUNTIME_CODE_CACHES).map((cache) => cache.file),
  ].sort();
}

/** Absolute pinned paths inside `installDir`, joined with the deployment platform's separator. */
export class PinnedLayout {
  readonly join: (...parts: string[]) => string;
  constructor(
    readonly platform: Platform,
    readonly installDir: string,
  ) {
    this.join = pathFunctions(platform).join;
  }
  /** The OpenClaw plugin package directory (what `plugins.load.paths` names). */
  get openclawPluginDir(): string {
    return this.join(this.installDir, 'runtime', OPENCLAW_PLUGIN_PACKAGE.dir);
  }
  get runtimeDir(): string {
    return this.join(this.installDir, 'runtime');
  }
  runtime(file: string): string {
    return this.join(this.installDir, 'runtime', file);
  }
  profileFile(kind: AnyProfileKind, file: string): string {
    return this.join(this.installDir, 'profiles', kind, file);
  }
  /** True for installDir itself and anything below it (Windows paths compared without case). */
  contains(target: string): boolean {
    const fold = (p: string) => (this.platform === 'windows' ? p.toLowerCase() : p);
    const sep = pathSeparator(this.platform);
    const dir = fold(this.installDir);
    const child = fold(target);
    return child === dir || child.startsWith(dir + sep);
  }
}

/** First 16 hex digits of sha256(installDir): names the per-user QWEN_HOME folder. */
export function installIdFor(installDir: string): string {
  return sha256Hex(installDir).slice(0, 16);
}
