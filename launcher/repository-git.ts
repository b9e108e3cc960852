// The repository's git directory, read as git will read it when Qwen runs `git` in the repository
// (at every start, and for the read-only subcommands it runs without asking): the one git finds from
// the repository root upwards (`.git` — a directory, or a `gitdir:` file followed, worktrees included —
// or a bare repository), its common directory, core.worktree, and the git directories of its
// submodules (git status recurses into them). Each configuration
// file is judged by src/policy/git-config.ts; a hook git runs on an index write refuses too.
import { ACCESS } from '../src/base/platform.js';
import {
  decideGitConfig,
  decideGitHook,
  GIT_CONFIG_POLICY,
  type GitConfigEntry,
  gitPathElsewhere,
  parseGitConfig,
} from '../src/policy/git-config.js';
import { indexLinks } from '../src/policy/git-index.js';
import { type LinkStat, NO_ENTRY, type PathVerdict, pathProblem } from '../src/policy/repository-path.js';
import type { RepositoryPaths } from './repository-files.js';

/** Nested submodule git directories followed at most this deep (modules/a/modules/b/…); deeper refuses. */
const MAX_MODULE_DEPTH = 8;

/**
 * The git directory git finds from the repository root (setup.c): `<dir>/.git`, else `<dir>` itself
 * when it is a git directory (a bare repository), for the root and every directory above it — Qwen
 * started in a subdirectory runs git in the enclosing repository. Every `.git` met on the way is
 * judged; the walk stops only where git surely stops.
 */
export function judgeGitDirectory(paths: RepositoryPaths): void {
  const { path } = paths;
  for (let dir = paths.root; ; dir = path.dirname(dir)) {
    if (judgeDotGit(paths, dir, 0)) return;
    // git takes a directory holding HEAD, objects and refs for a bare repository (safe.bareRepository=all).
    if (isGitDirectory(paths, dir)) {
      judgeGitDir(paths, dir, dir, 0);
      return;
    }
    if (path.dirname(dir) === dir) return;
  }
}

/**
 * `<top>/.git`, judged when present (`top`: a working tree, the root or a populated submodule). True
 * when git stops looking there: a `.git` file (git uses it or fails) or a valid `.git` directory.
 */
function judgeDotGit(paths: RepositoryPaths, top: string, depth: number): boolean {
  const { path } = paths;
  const dotGit = path.join(top, '.git');
  const verdict = paths.check(dotGit);
  if (verdict.kind !== 'inside') return verdict.kind !== 'absent';
  if (depth > MAX_MODULE_DEPTH) {
    paths.refuse({
      file: dotGit,
      key: '(submodule nesting)',
      why: `git status enters populated submodules at any depth; beyond ${MAX_MODULE_DEPTH} levels they are not checked`,
      fix: 'remove the deepest submodules from the index (git rm --cached <path>) or start Qwen in a shallower one',
    });
    return true;
  }
  if (verdict.type === 'directory') {
    judgeGitDir(paths, verdict.real, top, depth);
    return isGitDirectory(paths, verdict.real);
  }
  // A `.git` neither file nor directory (a FIFO): git passes over it and looks further up.
  if (verdict.type !== 'file') return false;
  const judged = paths.regularFile(dotGit, verdict);
  const text = judged === undefined ? undefined : paths.read(judged);
  // As git's read_gitfile: "gitdir: " at the very start, only trailing CRs and LFs dropped, the path a
  // C string (spaces and inner newlines are part of it); git refuses any other `.git` file.
  if (text === undefined || !text.startsWith('gitdir: ')) return true;
  const target = text
    .slice(8)
    .replace(/[\r\n]+$/, '')
    .split('\0')[0]!;
  // Relative to the directory git found `.git` in (its real working directory), not to a link's target.
  const gitDir = realDirectory(paths, path.resolve(top, target));
  if (gitDir !== undefined) judgeGitDir(paths, gitDir, top, depth);
  return true;
}

/** A git directory (`top`: the working tree git status runs in) with its configurations, hooks and submodules. */
function judgeGitDir(paths: RepositoryPaths, gitDir: string, top: string, depth: number): void {
  const { path } = paths;
  const commonDir = commonDirectory(paths, gitDir);
  const mainConfig = path.join(commonDir, 'config');
  const configs = new Set([
    mainConfig,
    path.join(commonDir, 'config.worktree'),
    path.join(gitDir, 'config.worktree'),
  ]);
  // Every value any of these files sets is followed: which one git takes depends on its order and on
  // extensions.worktreeConfig, so a value the launcher would skip must not be the one git uses.
  const hooksPaths: string[] = [];
  // git always reads `config`: a core.hooksPath there means git never runs .git/hooks.
  let defaultHooks = true;
  const worktrees: string[] = [];
  let hashBytes = 20;
  for (const file of configs) {
    const text = readConfig(paths, file);
    if (text === undefined) continue;
    const parsed = parseGitConfig(text);
    if (!('entries' in parsed)) continue;
    for (const e of parsed.entries) {
      if (e.subsection !== undefined || e.value === undefined) continue;
      judgeReadFile(paths, file, e);
      if (e.section === 'core' && e.name === 'hookspath') {
        // git takes `~/…` from a home directory and `%(prefix)/…` from its own prefix: neither is judged.
        const elsewhere = gitPathElsewhere(e.value);
        if (elsewhere !== undefined)
          paths.refuse({
            file,
            key: 'core.hookspath',
            why: `git runs the hooks of this directory ${elsewhere}, which the launcher does not check (a post-index-change hook there runs for git diff and git status, which Qwen 0.24.4 runs without asking)`,
            fix: `write it relative to the repository (git config --file ${file} core.hooksPath <path>)`,
          });
        hooksPaths.push(e.value);
        if (file === mainConfig && e.value !== '') defaultHooks = false;
      }
      // core.worktree moves the working tree (relative to the git directory): its submodules are entered.
      if (e.section === 'core' && e.name === 'worktree') worktrees.push(path.resolve(gitDir, e.value));
      if (e.section === 'extensions' && e.name === 'objectformat' && e.value.toLowerCase() === 'sha256')
        hashBytes = 32;
    }
  }
  const tops = [top, ...worktrees];
  // A relative core.hooksPath is taken from the top of the working tree (where git runs hooks).
  const hookDirs = new Set(defaultHooks ? [path.join(commonDir, 'hooks')] : []);
  for (const hooks of hooksPaths) for (const t of tops) hookDirs.add(path.resolve(t, hooks));
  for (const dir of hookDirs) judgeHooks(paths, dir);
  judgeModules(paths, path.join(commonDir, 'modules'), 0);
  const links = linksOfIndex(paths, path.join(gitDir, 'index'), hashBytes);
  for (const t of tops) {
    // git status enters every populated submodule (a gitlink of the index), .gitmodules or not (measured).
    for (const sub of links.gitlinks) {
      const inside = realDirectory(paths, path.resolve(t, sub));
      if (inside !== undefined) judgeDotGit(paths, inside, depth + 1);
    }
    // Qwen's read_file follows a link the model names after a dialog naming only the link, and glob
    // lists a linked directory with none (measured: `notes.txt -> /proc/self/environ`, "ReadFile
    // notes.txt" approved, the environment sent to the model): every link a checkout made is judged.
    for (const link of links.symlinks) {
      const file = path.resolve(t, link);
      if (paths.inRepository(file)) paths.check(file);
    }
  }
}

/** `$GIT_DIR/commondir` as git reads it (trailing CRs and LFs dropped), else the git directory itself. */
function commonDirectory(paths: RepositoryPaths, gitDir: string): string {
  const common = readSmall(paths, paths.path.join(gitDir, 'commondir'))?.replace(/[\r\n]+$/, '');
  if (common === undefined || common === '') return gitDir;
  return realDirectory(paths, paths.path.resolve(gitDir, common)) ?? gitDir;
}

/**
 * True only where git's is_git_directory surely holds: HEAD a regular file naming a ref or an object,
 * `objects` and `refs` directories. Anything less and git may look further up, so the walk goes on.
 */
function isGitDirectory(paths: RepositoryPaths, dir: string): boolean {
  const { path } = paths;
  if (readSmall(paths, path.join(dir, 'commondir')) !== undefined) return false;
  const head = path.join(dir, 'HEAD');
  let stat: LinkStat | undefined;
  try {
    stat = paths.fs.lstatSync(head, NO_ENTRY);
  } catch {
    // A directory the user cannot search is no git directory to git either.
    return false;
  }
  // git reads its first 255 bytes; a larger HEAD is not read whole here (the walk goes on instead).
  if (stat?.isFile() !== true || stat.size > 4096) return false;
  const text = readSmall(paths, head) ?? '';
  if (!/^(ref:[ \t\r\n]*refs\/|[0-9a-f]{40})/.test(text)) return false;
  // git's access(X_OK): a directory the user cannot search is no git directory to git, which looks further up.
  return ['objects', 'refs'].every((name) => {
    const real = realDirectory(paths, path.join(dir, name));
    if (real === undefined) return false;
    try {
      paths.fs.accessSync(real, ACCESS.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const NO_LINKS = { gitlinks: [], symlinks: [] };

function linksOfIndex(
  paths: RepositoryPaths,
  index: string,
  hashBytes: number,
): { gitlinks: string[]; symlinks: string[] } {
  const verdict = look(paths, index);
  if (verdict?.kind !== 'inside' || verdict.type !== 'file') return NO_LINKS;
  const refuse = (why: string, fix: string) => {
    paths.refuse({ file: index, key: '(the whole file)', why, fix });
    return NO_LINKS;
  };
  const max = GIT_CONFIG_POLICY.maxIndexBytes;
  if (verdict.size > max)
    return refuse(
      `it is larger than ${max} bytes, so the submodules git status enters and the links of the checkout are not checked`,
      'open a smaller checkout (git sparse-checkout), or ask the administrator to raise gitConfig.maxIndexBytes in policies/repository.json',
    );
  let data: Uint8Array;
  try {
    data = paths.fs.readFileSync(verdict.real);
  } catch {
    // What the user cannot read, git (the same user) cannot either.
    return NO_LINKS;
  }
  const scan = indexLinks(data, hashBytes);
  if ('error' in scan)
    return refuse(
      `it holds ${scan.error}, so the submodules git status enters and the links of the checkout cannot be checked`,
      'let git rewrite it whole (git update-index --no-split-index), or remove it',
    );
  return scan;
}

function judgeModules(paths: RepositoryPaths, modules: string, depth: number): void {
  if (depth >= MAX_MODULE_DEPTH) return;
  const dir = realDirectory(paths, modules);
  if (dir === undefined) return;
  let names: string[];
  try {
    names = paths.fs.readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const module = realDirectory(paths, paths.path.join(dir, name));
    if (module === undefined) continue;
    readConfig(paths, paths.path.join(module, 'config'));
    readConfig(paths, paths.path.join(module, 'config.worktree'));
    judgeHooks(paths, paths.path.join(module, 'hooks'));
    judgeModules(paths, paths.path.join(module, 'modules'), depth + 1);
  }
}

function judgeHooks(paths: RepositoryPaths, dir: string): void {
  for (const name of Object.keys(GIT_CONFIG_POLICY.hooks)) {
    const hook = paths.path.join(dir, name);
    const verdict = look(paths, hook);
    if (verdict !== undefined && verdict.kind !== 'absent') {
      for (const refusal of decideGitHook(hook, name)) paths.refuse(refusal);
    }
  }
}

/** Judged like every path (a link into /proc refuses); outside the repository only the special roots count. */
function look(paths: RepositoryPaths, file: string): PathVerdict | undefined {
  const verdict = paths.check(file, '(where it leads)', false);
  return verdict.kind === 'unreadable' ? undefined : verdict;
}

function realDirectory(paths: RepositoryPaths, dir: string): string | undefined {
  const verdict = look(paths, dir);
  return verdict?.kind === 'inside' && verdict.type === 'directory' ? verdict.real : undefined;
}

function readSmall(paths: RepositoryPaths, file: string): string | undefined {
  const verdict = look(paths, file);
  if (verdict?.kind !== 'inside' || verdict.type !== 'file') return undefined;
  try {
    return paths.fs.readFileSync(verdict.real, 'utf8');
  } catch {
    return undefined;
  }
}

/** One configuration file, judged; its text when git will read it. */
/**
 * A key naming a file git reads and prints (`blame.ignoreRevsFile`, `core.attributesFile`): judged by
 * the path rule from the repository root, where Qwen runs git (a relative value is taken from there);
 * a `~` or `%(prefix)/` value, which git takes from a home directory or its own prefix, refuses.
 */
function judgeReadFile(paths: RepositoryPaths, file: string, entry: GitConfigEntry): void {
  const key = `${entry.section}.${entry.name}`;
  const why = GIT_CONFIG_POLICY.files[key];
  if (why === undefined || entry.value === undefined || entry.value === '') return;
  const fix = `write a file of the repository, or remove it (git config --file ${file} --unset-all ${key})`;
  const elsewhere = gitPathElsewhere(entry.value);
  if (elsewhere !== undefined) {
    paths.refuse({ file, key, why: `${why}; this one is ${elsewhere}`, fix });
    return;
  }
  const problem = pathProblem(paths.judge(paths.path.resolve(paths.root, entry.value), true), paths.root);
  if (problem !== undefined) paths.refuse({ file, key, why: `${why}; ${problem.why}`, fix });
}

function readConfig(paths: RepositoryPaths, file: string): string | undefined {
  const verdict = look(paths, file);
  if (verdict?.kind !== 'inside') return undefined;
  if (verdict.type !== 'file' || verdict.size > GIT_CONFIG_POLICY.maxBytes) {
    paths.refuse({
      file,
      key: '(the whole file)',
      why:
        verdict.type === 'file'
          ? `it is larger than ${GIT_CONFIG_POLICY.maxBytes} bytes, so what git would run is not checked`
          : 'it is not a regular file, so what git would run cannot be checked',
      fix: 'replace it with a regular file or remove it',
    });
    return undefined;
  }
  let text: string;
  try {
    text = paths.fs.readFileSync(verdict.real, 'utf8');
  } catch {
    // What the user cannot read, git (the same user) cannot either: it stops before running anything.
    return undefined;
  }
  for (const refusal of decideGitConfig(file, text)) paths.refuse(refusal);
  return text;
}
