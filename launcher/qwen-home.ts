// The per-user, per-profile QWEN_HOME. Qwen 0.24.4 hangs with a read-only QWEN_HOME and a shared
// writable one mixes every user's sessions and prompt logs, so each user gets their own, under the
// data directory of env-paths' layout rooted at the passwd home (the caller's HOME and XDG_* are
// ignored: they would let anyone point Qwen's state, and its `output-language.md`, elsewhere).

import { errorCode } from '../src/base/errors.js';
import { pathSeparator, platformOfHost } from '../src/base/platform.js';
import { octalMode, posixQuote, show } from '../src/policy/quote.js';
import { failure } from './messages.js';

export const APP_NAME = 'qwen-managed';
/**
 * Written when missing: the pinned Qwen's own `$version` (its `settingsVersion` fact) stops it from
 * migrating and rewriting the file on start.
 */
export function qwenHomeSettings(settingsVersion: number): string {
  return `${JSON.stringify({ $version: settingsVersion })}\n`;
}

export type HomePlatform = 'linux' | 'darwin' | 'win32';

function joiner(platform: HomePlatform): (...parts: string[]) => string {
  const sep = pathSeparator(platformOfHost(platform));
  return (...parts) =>
    parts.map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, '') : p.replace(/^[\\/]+|[\\/]+$/g, ''))).join(sep);
}

/** The launcher's platform layout for a Node `process.platform` value (every other POSIX is linux's). */
export function homePlatform(platform: NodeJS.Platform): HomePlatform {
  return platform === 'darwin' || platform === 'win32' ? platform : 'linux';
}

/**
 * env-paths 4's `envPaths('qwen-managed', {suffix: ''}).data` without its environment overrides:
 * linux `~/.local/share/qwen-managed`, macOS `~/Library/Application Support/qwen-managed`, Windows
 * `~\AppData\Local\qwen-managed\Data` (LOCALAPPDATA is ignored like XDG_DATA_HOME).
 */
export function dataDir(platform: HomePlatform, home: string): string {
  const join = joiner(platform);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP_NAME);
  if (platform === 'win32') return join(home, 'AppData', 'Local', APP_NAME, 'Data');
  return join(home, '.local', 'share', APP_NAME);
}

/** `<data>/<installId>/<kind>/home`. */
export function qwenHomePath(platform: HomePlatform, home: string, installId: string, kind: string): string {
  return joiner(platform)(dataDir(platform, home), installId, kind, 'home');
}

/**
 * `<data>/<installId>/<kind>/system-defaults.json`, beside the Qwen home: the system-defaults layer
 * the launcher writes at each start (it carries this launch's `advanced.excludedEnvVars`).
 */
export function launchDefaultsPath(platform: HomePlatform, qwenHome: string): string {
  const sep = pathSeparator(platformOfHost(platform));
  return `${qwenHome.slice(0, qwenHome.lastIndexOf(sep))}${sep}system-defaults.json`;
}

export interface QwenHomeStat {
  uid: number;
  mode: number;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface QwenHomeFs {
  lstatSync(path: string): QwenHomeStat;
  mkdirSync(path: string, options: { mode: number }): unknown;
  chmodSync(path: string, mode: number): void;
  writeFileSync(path: string, data: string, options: { mode: number; flag: string }): void;
  linkSync(existing: string, created: string): void;
  unlinkSync(path: string): void;
  renameSync(from: string, to: string): void;
}

export interface EnsureQwenHomeOptions {
  /** The user's passwd home: levels from here down are created when missing. */
  home: string;
  /** The user the launcher runs as. */
  uid: number;
  platform: HomePlatform;
  fs: QwenHomeFs;
  /** Makes the temporary file name unique (pid and random bytes). */
  uniqueSuffix: string;
  /**
   * The pinned Qwen version's `qwenHomeSeed`: each file is written (0600, its directories 0700) only
   * when the top-level directory of its path does not exist yet — a home Qwen already ran in is its own.
   */
  seed?: Readonly<Record<string, string>>;
  /** The pinned Qwen's settings format (`settingsVersion`), written into a missing settings.json. */
  settingsVersion: number;
}

function tryLstat(fs: QwenHomeFs, path: string): QwenHomeStat | undefined {
  try {
    return fs.lstatSync(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw failure(`cannot inspect ${show(path)} (${errorCode(error)})`);
  }
}

/** What ensurePrivateHome needs: where the levels may be created, whose it must be, and the file system. */
export type PrivateHomeOptions = Pick<EnsureQwenHomeOptions, 'home' | 'uid' | 'platform' | 'fs'>;

/**
 * Makes sure `dir` (below the passwd home) exists as the user's private directory: creates each
 * missing level below `home` with mode 0700 and refuses one that is a symlink, not the user's, or open
 * to others. `label` names it in every refusal ("the Qwen home", "the OpenClaw state directory").
 * Returns the path separator of the platform.
 */
export function ensurePrivateHome(dir: string, label: string, options: PrivateHomeOptions): string {
  const { fs, platform } = options;
  const sep = pathSeparator(platformOfHost(platform));
  const home = options.home.replace(/[\\/]+$/, '');
  if (!dir.startsWith(home + sep)) {
    throw failure(`${label} ${show(dir)} is not under your home directory ${show(home)}`);
  }
  makePrivateLevels(fs, platform, home, dir.slice(home.length + 1).split(sep), sep);
  const stat = tryLstat(fs, dir);
  // A symlink could point the agent's state, sessions and prompt logs at a place another user reads.
  if (stat === undefined || stat.isSymbolicLink() || !stat.isDirectory()) {
    throw failure(
      `${label} ${show(dir)} must be a real directory, not a symlink or a file; remove it and retry`,
    );
  }
  if (platform !== 'win32') {
    if (stat.uid !== options.uid) {
      throw failure(
        `${label} ${show(dir)} is owned by uid ${stat.uid}, not you (uid ${options.uid}); remove it and retry`,
      );
    }
    // It holds sessions and prompt logs: nobody else may read or enter it.
    if ((stat.mode & 0o077) !== 0) {
      throw failure(
        `${label} ${show(dir)} is accessible by group or others (mode ${octalMode(stat.mode)}); fix: chmod 700 ${posixQuote(dir)}`,
      );
    }
  }
  return sep;
}

/**
 * Makes sure `qwenHome` exists as the user's private directory with a `settings.json`: creates each
 * missing level below `home` with mode 0700, writes `{"$version":<settingsVersion>}` atomically when the settings
 * file is missing, seeds a new home with the pinned Qwen's `qwenHomeSeed`, and refuses a QWEN_HOME
 * that is a symlink, not the user's, or open to others.
 */
export function ensureQwenHome(qwenHome: string, options: EnsureQwenHomeOptions): void {
  const { fs, platform } = options;
  const sep = ensurePrivateHome(qwenHome, 'the Qwen home', { ...options, fs, platform });
  const settings = `${qwenHome}${sep}settings.json`;
  if (tryLstat(fs, settings) === undefined)
    createFile(fs, settings, qwenHomeSettings(options.settingsVersion), options.uniqueSuffix);
  // Taken per top-level directory before any is made, so that one entry cannot seed another's.
  const fresh = new Set(
    Object.keys(options.seed ?? {})
      .map((rel) => rel.split('/')[0]!)
      .filter((top) => tryLstat(fs, `${qwenHome}${sep}${top}`) === undefined),
  );
  for (const [rel, content] of Object.entries(options.seed ?? {})) {
    const parts = rel.split('/');
    if (!fresh.has(parts[0]!)) continue;
    makePrivateLevels(fs, platform, qwenHome, parts.slice(0, -1), sep);
    const file = `${qwenHome}${sep}${parts.join(sep)}`;
    if (tryLstat(fs, file) === undefined) createFile(fs, file, content, options.uniqueSuffix);
  }
}

/** Creates each missing level of `parts` below `base` with mode 0700 (one made meanwhile is left as it is). */
function makePrivateLevels(
  fs: QwenHomeFs,
  platform: NodeJS.Platform,
  base: string,
  parts: readonly string[],
  sep: string,
): void {
  let level = base;
  for (const part of parts) {
    level = `${level}${sep}${part}`;
    if (tryLstat(fs, level) !== undefined) continue;
    try {
      fs.mkdirSync(level, { mode: 0o700 });
      // The umask may have taken bits away, never added them; set exactly 0700 regardless.
      if (platform !== 'win32') fs.chmodSync(level, 0o700);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') {
        throw failure(
          `cannot create ${show(level)} (${errorCode(error)}); check your home directory's permissions`,
        );
      }
    }
  }
}

/** Writes a new private file atomically; one that appeared meanwhile (the user, another launch) stays. */
function createFile(fs: QwenHomeFs, file: string, content: string, uniqueSuffix: string): void {
  const temp = `${file}.${uniqueSuffix}.tmp`;
  try {
    fs.writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw failure(`cannot write ${show(temp)} (${errorCode(error)})`);
  }
  try {
    // A hard link never replaces an existing file.
    fs.linkSync(temp, file);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw failure(`cannot write ${show(file)} (${errorCode(error)})`);
  } finally {
    try {
      fs.unlinkSync(temp);
    } catch {
      // already gone
    }
  }
}

export interface LaunchDefaultsOptions {
  fs: Pick<QwenHomeFs, 'writeFileSync' | 'renameSync' | 'unlinkSync'>;
  uniqueSuffix: string;
}

/**
 * Writes the launch's system-defaults layer atomically (a private temp file renamed over the old
 * one: Qwen never reads half a file, and a symlink planted at the path is replaced, not followed).
 */
export function writeLaunchDefaults(file: string, content: string, options: LaunchDefaultsOptions): void {
  const temp = `${file}.${options.uniqueSuffix}.tmp`;
  try {
    options.fs.writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
    options.fs.renameSync(temp, file);
  } catch (error) {
    try {
      options.fs.unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw failure(
      `cannot write ${show(file)} (${errorCode(error)}); check your home directory's permissions`,
    );
  }
}
