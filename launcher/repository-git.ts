// The repository's git directory, read as git will read it when Qwen runs `git` in the repository
// (at every start, and for the read-only subcommands it runs without asking): `<repo>/.git` (a
// directory, or a `gitdir:` file followed, worktrees included), its common directory, and the git
// directories of its submodules below `modules/` (git status recurses into them). Each configuration
// file is judged by src/policy/git-config.ts; a hook git runs on an index write refuses too.
import {
  decideGitConfig,
  decideGitHook,
  GIT_CONFIG_POLICY,
  parseGitConfig,
} from '../src/policy/git-config.js';
import { gitlinkPaths } from '../src/policy/git-index.js';
import type { PathVerdict } from '../src/policy/repository-path.js';
import type { RepositoryPaths } from './repository-files.js';

/** Nested submodule git directories followed at most this deep (modules/a/modules/b/…). */
const MAX_MODULE_DEPTH = 8;

/**
 * `top`: the working tree (the repository root, or a populated submodule below it, which git status
 * enters with that submodule's own git directory).
 */
export function judgeGitDirectory(paths: RepositoryPaths, top = paths.root, depth = 0): void {
  const { path } = paths;
  if (depth >= MAX_MODULE_DEPTH) return;
  const dotGit = path.join(top, '.git');
  const verdict = paths.check(dotGit);
  if (verdict.kind !== 'inside') return;
  let gitDir: string | undefined;
  if (verdict.type === 'directory') gitDir = verdict.real;
  else if (verdict.type === 'file') {
    const judged = paths.regularFile(dotGit, verdict);
    const text = judged === undefined ? undefined : paths.read(judged);
    const target = /^gitdir: *(.+?)\s*$/m.exec(text ?? '')?.[1];
    // git refuses a `.git` file it cannot read as `gitdir: <path>`: then no git runs here.
    if (target === undefined) return;
    // A worktree's or submodule's git directory is usually elsewhere: git reads it wherever it is.
    gitDir = realDirectory(paths, path.resolve(path.dirname(verdict.real), target));
  }
  if (gitDir === undefined) return;
  const commonFile = path.join(gitDir, 'commondir');
  const common = readSmall(paths, commonFile)?.trim();
  const commonDir =
    common === undefined || common === ''
      ? gitDir
      : (realDirectory(paths, path.resolve(gitDir, common)) ?? gitDir);
  const configs = new Set([
    path.join(commonDir, 'config'),
    path.join(commonDir, 'config.worktree'),
    path.join(gitDir, 'config.worktree'),
  ]);
  let hooksPath: string | undefined;
  let hashBytes = 20;
  for (const file of configs) {
    const text = readConfig(paths, file);
    if (text === undefined) continue;
    const parsed = parseGitConfig(text);
    if (!('entries' in parsed)) continue;
    for (const e of parsed.entries) {
      if (e.subsection !== undefined) continue;
      if (e.section === 'core' && e.name === 'hookspath') hooksPath = e.value;
      if (e.section === 'extensions' && e.name === 'objectformat' && e.value?.toLowerCase() === 'sha256')
        hashBytes = 32;
    }
  }
  // A relative core.hooksPath is taken from the top of the working tree (where Qwen runs git).
  judgeHooks(paths, hooksPath === undefined ? path.join(commonDir, 'hooks') : path.resolve(top, hooksPath));
  judgeModules(paths, path.join(commonDir, 'modules'), 0);
  // git status enters every populated submodule (a gitlink of the index), .gitmodules or not (measured).
  for (const sub of gitlinks(paths, path.join(gitDir, 'index'), hashBytes)) {
    const inside = path.resolve(top, sub);
    if (paths.inRepository(inside)) judgeGitDirectory(paths, inside, depth + 1);
  }
}

function gitlinks(paths: RepositoryPaths, index: string, hashBytes: number): string[] {
  const verdict = look(paths, index);
  if (verdict?.kind !== 'inside' || verdict.type !== 'file') return [];
  const refuse = (why: string, fix: string): string[] => {
    paths.refuse({ file: index, key: '(the whole file)', why, fix });
    return [];
  };
  const max = GIT_CONFIG_POLICY.maxIndexBytes;
  if (verdict.size > max)
    return refuse(
      `it is larger than ${max} bytes, so the submodules git status enters are not checked`,
      'open a smaller checkout (git sparse-checkout), or ask the administrator to raise gitConfig.maxIndexBytes in policies/repository.json',
    );
  let data: Uint8Array;
  try {
    data = paths.fs.readFileSync(verdict.real);
  } catch {
    // What the user cannot read, git (the same user) cannot either.
    return [];
  }
  const scan = gitlinkPaths(data, hashBytes);
  if ('error' in scan)
    return refuse(
      `it holds ${scan.error}, so the submodules git status enters cannot be checked`,
      'let git rewrite it whole (git update-index --no-split-index), or remove it',
    );
  return scan.paths;
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
