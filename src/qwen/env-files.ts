// The `.env` files Qwen Code 0.24 loads into its environment at start-up, and how much of each it
// takes — measured on the real CLI (docs/repository.md, "Environment files"). The launcher runs the
// same search before it starts Qwen, so it knows every file and variable Qwen is about to read.
//
// Qwen walks up from its working directory and takes the FIRST of `<dir>/.qwen/.env`, `<dir>/.env`
// it may use, stopping at HOME; then it adds the home files `$QWEN_HOME/.env`, `~/.qwen/.env` (only
// when QWEN_HOME is elsewhere) and `~/.env`. A project file counts only in a trusted folder; the
// managed trusted-folders file makes `/` DO_NOT_TRUST, so no directory above the repository counts.
// Every variable a file defines that is unset or empty in Qwen's environment is filled from it.
import type { Platform } from '../base/platform.js';

/**
 * `project`: a plain `.env` of the repository — Qwen honours `advanced.excludedEnvVars` for it.
 * `project-qwen`: `.qwen/.env` of the repository, and `home`: the user's files — Qwen applies every
 * variable of those regardless of `advanced.excludedEnvVars` (measured).
 */
export type EnvFileScope = 'project' | 'project-qwen' | 'home';

export interface EnvFile {
  path: string;
  scope: EnvFileScope;
}

export interface EnvFileSearchFs {
  existsSync(path: string): boolean;
  realpathSync(path: string): string;
}

export interface PathOps {
  join(...parts: string[]): string;
  dirname(path: string): string;
  basename(path: string): string;
  resolve(...parts: string[]): string;
  normalize(path: string): string;
}

export interface EnvFileSearch {
  /** Qwen's working directory: the repository root. */
  startDir: string;
  /** HOME as Qwen sees it (the launcher sets it from the passwd entry). */
  home: string;
  /** QWEN_HOME as Qwen sees it. */
  qwenHome: string;
  /** The repository's trust decision in the pinned trusted-folders file. */
  trusted: boolean;
  fs: EnvFileSearchFs;
  path: PathOps;
}

/** Qwen's settings directory name, in the repository and in HOME. */
export const QWEN_DIR = '.qwen';
export const ENV_FILE = '.env';

/** The files Qwen will load, in the order it applies them (earlier files win for a variable). */
export function envFilesQwenLoads(search: EnvFileSearch): EnvFile[] {
  const { fs, path, home, trusted } = search;
  let realStart = path.resolve(search.startDir);
  try {
    realStart = fs.realpathSync(realStart);
  } catch {
    // Qwen keeps the resolved path when realpath fails; so do we.
  }
  const globalQwenDir = path.resolve(search.qwenHome);
  const legacyQwenDir = path.normalize(path.join(home, QWEN_DIR));
  const customConfigDir = path.normalize(globalQwenDir) !== legacyQwenDir;
  const userLevel = new Set(
    [path.join(home, ENV_FILE), path.join(globalQwenDir, ENV_FILE), path.join(legacyQwenDir, ENV_FILE)].map(
      (p) => path.normalize(p),
    ),
  );
  const found: EnvFile[] = [];
  const seen = new Set<string>();

  /** `normalized`: the file's path, normalized once by the caller. */
  const usable = (normalized: string): boolean => {
    if (userLevel.has(normalized)) return true;
    if (!trusted) return false;
    const dir = path.dirname(normalized);
    const workspaceDir = path.basename(dir) === QWEN_DIR ? path.dirname(dir) : dir;
    // Only the repository itself is trusted: `/` is DO_NOT_TRUST in the managed rules.
    return workspaceDir === realStart;
  };
  const push = (file: string): boolean => {
    const normalized = path.normalize(file);
    // Usable first: the caller's existence test judges the file (and may refuse it).
    if (seen.has(normalized) || !usable(normalized) || !fs.existsSync(file)) return false;
    seen.add(normalized);
    const isHome = userLevel.has(normalized);
    const scope: EnvFileScope = isHome
      ? 'home'
      : path.basename(path.dirname(normalized)) === QWEN_DIR
        ? 'project-qwen'
        : 'project';
    found.push({ path: file, scope });
    return true;
  };
  const pushHome = (): void => {
    push(path.join(globalQwenDir, ENV_FILE));
    if (customConfigDir) push(path.join(legacyQwenDir, ENV_FILE));
    push(path.join(home, ENV_FILE));
  };

  if (path.resolve(search.startDir) === path.resolve(home)) {
    pushHome();
    return found;
  }
  let dir = realStart;
  for (;;) {
    if (dir === home) {
      pushHome();
      return found;
    }
    if (push(path.join(dir, QWEN_DIR, ENV_FILE)) || push(path.join(dir, ENV_FILE))) {
      pushHome();
      return found;
    }
    const parent = path.dirname(dir);
    if (parent === dir || parent === '') {
      pushHome();
      return found;
    }
    dir = parent;
  }
}

/** `NAME` or `PREFIX*`: the administrator's `environment.fromFiles` entries. */
export function matchesNamePattern(name: string, pattern: string, platform: Platform): boolean {
  const fold = (s: string) => (platform === 'windows' ? s.toUpperCase() : s);
  return pattern.endsWith('*')
    ? fold(name).startsWith(fold(pattern.slice(0, -1)))
    : fold(name) === fold(pattern);
}
