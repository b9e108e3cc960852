// What the approval guard may look at besides the event, and the path facts every rule shares.
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { RepositoryCodeRisk } from './repository-code-gate.js';

// The guard's modules take node:path from here: the bundle then requires it once (each module's own
// `require("node:path")` cost ~0.1 M instructions per guard run under callgrind).
export { basename, dirname, isAbsolute, join, relative, resolve };

/** What the guard may look at besides the event: links on disk, and Qwen's runtime directory. */
export interface GuardHost {
  /** The path with its nearest existing ancestor's links resolved (identity when none can be read). */
  realpath(path: string): string;
  /** QWEN_RUNTIME_DIR as the launcher pinned it (Qwen's own temporary directories live under it). */
  runtimeDir?: string;
  /** Qwen's own directories, where it reads with no dialog: QWEN_RUNTIME_DIR and QWEN_HOME. */
  qwenDirs?: readonly string[];
  /** sha256 in hex: Qwen names a repository's temporary directory by its root's hash. */
  sha256?(text: string): string;
  /** Whether something (a link too) is at `path`; every path may exist when unknown. */
  exists?(path: string): boolean;
  /** HOME, which bash puts for a leading `~`. */
  home?: string;
  /** The names in a directory (undefined when it is none or cannot be read): for expanding globs. */
  readdir?(dir: string): readonly string[] | undefined;
  /** The repository code a shell command runs, named (hooks, scripts, build files); undefined when none. */
  repositoryCode?: RepositoryCodeRisk;
}

/** Whether `path` is `root` or below it. */
export function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** Qwen 0.24.4's temporary directory for the repository at `root`, when the host can name it. */
export function ownTempDir(root: string, host: GuardHost): string | undefined {
  if (host.runtimeDir === undefined || host.runtimeDir === '' || host.sha256 === undefined) return undefined;
  return resolve(host.runtimeDir, 'tmp', host.sha256(root));
}

/** The host's Qwen directories that can name a place: absolute, not empty (an unset variable is ''). */
export function qwenDirsOf(host: GuardHost): string[] {
  return (host.qwenDirs ?? []).filter((dir) => dir !== '' && isAbsolute(dir));
}

export const LEXICAL: GuardHost = { realpath: (p) => p };

export const trimSlashes = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, '') : p);
