// Per-test Qwen state: a QWEN_HOME whose user settings point at the fake model, a system settings
// file, and the environment + argv to start the pinned Qwen directly.

import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepositoryTrust } from '../../../src/contracts/launch-plan.js';
import { managedBaseSettings } from '../../../src/deploy/deployment/settings.js';
import { trustedFoldersFor } from '../../../src/deploy/render/profile.js';
import { node22, qwenCli } from './paths.js';

export interface QwenHomeOptions {
  /** The fake model's base URL, e.g. `http://127.0.0.1:1234/v1`. */
  baseUrl: string;
  model?: string;
  apiKey?: string;
  /** Extra user settings merged at the top level (shallow). */
  extra?: Record<string, unknown>;
  /** Parent directory; default a fresh temp dir. */
  parent?: string;
  /** chown the home (recursively, as created here) to this user. */
  owner?: { uid: number; gid: number };
}

/** Creates a QWEN_HOME with `{"$version":4, security.auth → fake model, model.name}`. Returns its path. */
export function makeQwenHome(options: QwenHomeOptions): string {
  const parent = options.parent ?? mkdtempSync(join(tmpdir(), 'qwen-e2e-'));
  const home = join(parent, 'qwen-home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const settings = {
    $version: 4,
    security: {
      auth: { selectedType: 'openai', apiKey: options.apiKey ?? 'sk-fake', baseUrl: options.baseUrl },
    },
    model: { name: options.model ?? 'fake-model' },
    ...options.extra,
  };
  const file = join(home, 'settings.json');
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  if (options.owner) {
    chownSync(parent, options.owner.uid, options.owner.gid);
    chownSync(home, options.owner.uid, options.owner.gid);
    chownSync(file, options.owner.uid, options.owner.gid);
  }
  return home;
}

/**
 * The managed system-settings baseline every profile starts from: policies/settings-baseline.json
 * through render's own managedBaseSettings, so a suite runs Qwen as render configures it (a copy
 * here went stale: it lacked folder trust, tools.sandbox, skills, ide, context and ten of the
 * disabled slash commands). Returns a fresh object each call.
 */
export function managedBaseline(): Record<string, unknown> {
  return managedBaseSettings(undefined);
}

/**
 * The trusted-folders rules render pins beside the baseline (it turns folder trust on): `/` not
 * trusted, the repository as its profile's `repositoryTrust` says (render's trustedFoldersFor).
 */
export function managedTrustedFolders(
  repositoryRoot: string,
  trust: RepositoryTrust = 'trusted',
): Record<string, string> {
  return trustedFoldersFor('posix', repositoryRoot, trust);
}

/**
 * The measurement pages' set-up (docs/qwen-0.24.4-measurements.md: "folder trust off, every folder
 * trusted"): the managed baseline with folder trust off. The scripts in test/e2e/measure/ start
 * from it and turn trust on where a case measures what trust changes.
 */
export function measuredBaseline(): Record<string, unknown> {
  return { ...managedBaseline(), security: { folderTrust: { enabled: false } } };
}

/** Writes a settings file (pretty JSON) with the given mode; creates the directory. */
export function writeSettingsFile(file: string, settings: unknown, mode = 0o644): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode });
  chmodSync(file, mode);
}

export interface QwenEnvOptions {
  qwenHome: string;
  systemSettingsPath: string;
  /** HOME for the process; default the QWEN_HOME's parent directory. */
  home?: string;
  /** Extra variables (win over the defaults). */
  extra?: Record<string, string>;
  /** Variables to leave out entirely (applied after `extra`). */
  unset?: string[];
}

/**
 * A minimal, explicit environment for Qwen: nothing inherited except PATH. Forces the managed
 * values the launcher will force (safe mode and simple mode off, cron off, telemetry off).
 */
export function qwenEnv(options: QwenEnvOptions): Record<string, string> {
  const systemDir = join(options.systemSettingsPath, '..');
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: options.home ?? join(options.qwenHome, '..'),
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    QWEN_HOME: options.qwenHome,
    QWEN_CODE_SYSTEM_SETTINGS_PATH: options.systemSettingsPath,
    QWEN_CODE_SYSTEM_DEFAULTS_PATH: join(systemDir, 'system-defaults.json'),
    QWEN_CODE_TRUSTED_FOLDERS_PATH: join(systemDir, 'trusted-folders.json'),
    QWEN_CODE_SAFE_MODE: '0',
    QWEN_CODE_SIMPLE: '0',
    QWEN_CODE_DISABLE_CRON: '1',
    QWEN_TELEMETRY_ENABLED: '0',
    QWEN_USAGE_STATISTICS_ENABLED: '0',
    ...options.extra,
  };
  for (const name of options.unset ?? []) delete env[name];
  return env;
}

/** Where the pinned Node and Qwen are run from: `.cache/e2e` in the clone, or a run location's copy. */
export interface QwenToolchain {
  node22: string;
  qwenCli: string;
}

/** `<node22> <cli.js> --extensions none …extra` — the pinned Qwen, never through cli-entry.js. */
export function qwenArgv(
  extra: string[] = [],
  toolchain: QwenToolchain = { node22, qwenCli },
): [string, ...string[]] {
  return [toolchain.node22, toolchain.qwenCli, '--extensions', 'none', ...extra];
}

/** Removes a directory tree made for a test (ignores errors). */
export function removeTree(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
