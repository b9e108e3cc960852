// The files Qwen Code 0.24 reads as model context at start-up, and the `@` imports it follows in
// them — measured on the real CLI (docs/repository.md, "Context files"; scripts/e2e/measure-hostile.ts)
// and read from its source. The launcher replays the same search to judge every file Qwen will put
// into the system prompt before Qwen starts.
//
// - Names: `context.fileName` (a string or a list), default `QWEN.md`, `AGENTS.md`. The managed system
//   settings pin the list, so a repository's settings cannot name `../../.netrc` (system settings win).
// - For each name: `$QWEN_HOME/<name>`; then, from the working directory up, `<dir>/<name>` — up to and
//   including the parent of the project root (the nearest directory holding `.git`), or, with no
//   `.git` anywhere above, up to the parent of HOME (or `/`, not itself checked); never inside
//   `$QWEN_HOME` or `~/.qwen`. When the working directory is HOME: `~/<name>` only.
// - `<project root>/.qwen/QWEN.local.md` (only when a project root was found), then the output-language
//   rule: `<cwd>/.qwen/output-language.md` when it exists — in an untrusted folder too — else
//   `$QWEN_HOME/output-language.md`.
// - In each file, `@<path>` (after whitespace or at the start; the path starts with `.`, `/` or a
//   letter; outside code spans and blocks) imports `path.resolve(<dir of the file>, <path>)` when that
//   lies lexically inside the project root of the first file (its `.git` directory, else its own
//   directory) and is no `file:`/`http(s):` URL; imports nest five levels deep. Links are followed.
import type { PathOps } from './env-files.js';

/** Qwen's default `context.fileName` (packages/core memory-constants). */
export const DEFAULT_CONTEXT_FILE_NAMES: readonly string[] = ['QWEN.md', 'AGENTS.md'];
export const LOCAL_CONTEXT_FILE = 'QWEN.local.md';
export const OUTPUT_LANGUAGE_FILE = 'output-language.md';
/** Files at depth 1..5 are read; the imports of a file at depth 5 are not followed (measured). */
export const IMPORT_MAX_DEPTH = 5;

/** `context.fileName` as Qwen takes it from the merged settings: trimmed, the default when unset or empty. */
export function contextFileNames(setting: unknown): string[] {
  if (Array.isArray(setting)) {
    const names = setting.filter((n): n is string => typeof n === 'string').map((n) => n.trim());
    return names.length > 0 ? names : [...DEFAULT_CONTEXT_FILE_NAMES];
  }
  if (typeof setting === 'string' && setting.trim() !== '') return [setting.trim()];
  return [...DEFAULT_CONTEXT_FILE_NAMES];
}

export interface ContextSearch {
  /** Qwen's working directory (the repository's real root). */
  cwd: string;
  home: string;
  qwenHome: string;
  names: readonly string[];
  /** Whether the folder is trusted (an untrusted one contributes only the output-language rule). */
  trusted: boolean;
  /** `<dir>/.git` is a directory or a regular file (Qwen's project-root test, with lstat). */
  isProjectRoot(dir: string): boolean;
  exists(file: string): boolean;
  path: PathOps;
}

/** The nearest directory at or above `start` that Qwen takes for the project root, or undefined. */
export function findProjectRoot(
  start: string,
  search: Pick<ContextSearch, 'isProjectRoot' | 'path'>,
): string | undefined {
  for (let dir = start; ; ) {
    if (search.isProjectRoot(dir)) return dir;
    const parent = search.path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Every path Qwen 0.24 may read as a context file at start-up, in its order (candidates: the caller
 * judges each; one that does not exist is skipped by Qwen too).
 */
export function contextFileCandidates(search: ContextSearch): string[] {
  const { path, cwd, home } = search;
  const found: string[] = [];
  const add = (file: string) => {
    if (!found.includes(file)) found.push(file);
  };
  const globalQwenDir = path.resolve(search.qwenHome);
  const homeQwenDir = path.join(home, '.qwen');
  const projectRoot = findProjectRoot(cwd, search);
  if (search.trusted) {
    for (const name of search.names) {
      const globalFile = path.join(globalQwenDir, name);
      add(globalFile);
      if (path.resolve(cwd) === path.resolve(home)) {
        add(path.join(home, name));
        continue;
      }
      const stop = projectRoot !== undefined ? path.dirname(projectRoot) : path.dirname(path.resolve(home));
      const upward: string[] = [];
      for (let dir = cwd; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        if (dir === globalQwenDir || dir === homeQwenDir) break;
        const file = path.join(dir, name);
        if (file !== globalFile) upward.unshift(file);
        if (dir === stop) break;
      }
      for (const file of upward) add(file);
    }
    if (projectRoot !== undefined) add(path.join(projectRoot, '.qwen', LOCAL_CONTEXT_FILE));
  }
  // The output-language rule is read whatever the folder's trust (measured).
  const projectRule = path.join(cwd, '.qwen', OUTPUT_LANGUAGE_FILE);
  add(search.exists(projectRule) ? projectRule : path.join(globalQwenDir, OUTPUT_LANGUAGE_FILE));
  return found;
}

function isImportStart(char: string): boolean {
  return char === '.' || char === '/' || (char >= 'A' && char <= 'Z') || (char >= 'a' && char <= 'z');
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * The `@` imports Qwen's scanner finds in a context file. A superset of what it follows: Qwen also
 * skips imports inside Markdown code spans and blocks (measured), which this does not try to parse.
 */
export function findImports(text: string): string[] {
  const found: string[] = [];
  for (let i = text.indexOf('@'); i !== -1; i = text.indexOf('@', i + 1)) {
    if (i > 0 && !WHITESPACE.has(text[i - 1]!)) continue;
    let end = i + 1;
    while (end < text.length && !WHITESPACE.has(text[end]!)) end++;
    const path = text.slice(i + 1, end);
    if (path.length > 0 && isImportStart(path[0]!)) found.push(path);
    i = end;
  }
  return found;
}

/** Qwen follows an import only when it is no URL and lies lexically inside the first file's project root. */
export function importTarget(
  importPath: string,
  fromFile: string,
  projectRoot: string,
  path: PathOps & { relative(from: string, to: string): string; isAbsolute(p: string): boolean; sep: string },
): string | undefined {
  if (/^(file|https?):\/\//.test(importPath)) return undefined;
  const target = path.resolve(path.dirname(fromFile), importPath);
  const relative = path.relative(projectRoot, target);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
    return undefined;
  return target;
}
