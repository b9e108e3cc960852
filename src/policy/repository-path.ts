// One rule for every path the repository controls: judge it as Qwen will open it. Qwen starts in
// the repository root and opens the path the kernel way — every link followed from the directory it
// sits in — so the launcher resolves the same path itself, link by link, anchored at the repository's
// real root and never through its own working directory. A path that ends outside the repository,
// or passes through /proc, /sys or /dev (whose contents belong to whoever reads them:
// /proc/self/environ is the reader's own environment, /proc/self/cwd its working directory), cannot
// be what the repository says it is: the caller refuses it, naming the file (docs/repository.md).
//
// Pure: the caller injects lstat/readlink; nothing here touches the file system by itself, and
// nothing under a special root is ever looked at (its answer would be the launcher's, not Qwen's).
import repositoryPolicy from '../../policies/repository.json' with { type: 'json' };

export interface LinkStat {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFile(): boolean;
  size: number;
}

export interface LinkFs {
  /** node:fs's: a missing entry is `undefined` (or ENOENT thrown), not an error object built per look. */
  lstatSync(path: string, options: typeof NO_ENTRY): LinkStat | undefined;
  readlinkSync(path: string): string;
}

/** Most paths judged do not exist (context files, `.env` in every parent): no thrown error for those. */
export const NO_ENTRY = { throwIfNoEntry: false } as const;

export interface PathSyntax {
  sep: string;
  isAbsolute(path: string): boolean;
  join(...parts: string[]): string;
  dirname(path: string): string;
  resolve(...parts: string[]): string;
  normalize(path: string): string;
  parse(path: string): { root: string };
}

export interface PathRules {
  /** Directories whose contents depend on the reading process: never followed into. */
  specialRoots: readonly string[];
  /** Links followed before a path counts as a loop (the kernel's own limit is 40). */
  maxLinkHops: number;
}

export const PATH_RULES: PathRules = repositoryPolicy.paths;

export interface PathContext {
  /** The repository's real root (the caller resolves it once); `/` judges without a repository. */
  root: string;
  fs: LinkFs;
  path: PathSyntax;
  rules?: PathRules;
}

/** The links followed, each as `<link> -> <its target as written>`. */
type Via = readonly string[];

export type PathVerdict =
  | { kind: 'inside'; real: string; type: 'file' | 'directory' | 'other'; size: number; via: Via }
  /** Nothing there (a missing file, or a dangling link that stays inside): Qwen reads nothing. */
  | { kind: 'absent'; via: Via }
  /** Ends outside the repository — `dangling` when nothing is there (yet). */
  | { kind: 'outside'; real: string; dangling: boolean; via: Via }
  | { kind: 'special'; real: string; via: Via }
  | { kind: 'loop'; via: Via }
  /** A step could not be looked at (EACCES, …): what Qwen would read is unknown. */
  | { kind: 'unreadable'; at: string; code: string; via: Via };

// Allocation-free: it runs for every component of every path judged at each launch.
function under(parent: string, child: string, sep: string): boolean {
  if (child === parent) return true;
  if (!child.startsWith(parent)) return false;
  return parent.endsWith(sep) || child.startsWith(sep, parent.length);
}

/** `dir` joined with one plain component (no separator, not `.` or `..`): already normal. */
function joinName(dir: string, name: string, sep: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

function names(path: string, sep: string): string[] {
  return path.split(sep).filter((part) => part !== '' && part !== '.');
}

/**
 * The file-system root a normalized path starts from (`/`, or `C:\` on Windows): `parse` reads it
 * off the front; `dirname` up to the top (what a relative path needs) rescans the path at each level.
 */
export function rootOf(normalized: string, syntax: PathSyntax): string {
  const { root } = syntax.parse(normalized);
  if (root !== '') return root;
  let dir = normalized;
  for (let up = syntax.dirname(dir); up !== dir; up = syntax.dirname(dir)) dir = up;
  return dir;
}

/**
 * Where `target` (an absolute path, as Qwen passes it to `open`) really leads. Components are
 * taken left to right as the kernel does: a link's target replaces it (an absolute target restarts
 * at the file-system root, a relative one continues from the link's directory), `..` goes up from
 * the directory actually reached. Resolution starts at the repository's real root when the path is
 * written below it, so an ordinary path costs one `lstat` per component inside the repository.
 */
export function judgePath(target: string, context: PathContext): PathVerdict {
  const { fs, path } = context;
  const rules = context.rules ?? PATH_RULES;
  const sep = path.sep;
  const special = (p: string) => {
    for (const root of rules.specialRoots) if (under(root, p, sep)) return true;
    return false;
  };
  const inRepository = (p: string) => under(context.root, p, sep);
  const via: string[] = [];
  const written = path.normalize(target);
  let current: string;
  let pending: string[];
  if (under(context.root, written, sep)) {
    current = context.root;
    pending = names(written.slice(context.root.length), sep);
  } else {
    current = rootOf(written, path);
    pending = names(written.slice(current.length), sep);
  }
  let hops = 0;
  for (;;) {
    if (special(current)) return { kind: 'special', real: current, via };
    const name = pending.shift();
    if (name === undefined) break;
    if (name === '..') {
      current = path.dirname(current);
      continue;
    }
    const candidate = joinName(current, name, sep);
    // Checked before looking: what is under /proc is the looker's, not the repository's.
    if (special(candidate)) return { kind: 'special', real: path.join(candidate, ...pending), via };
    let stat: LinkStat | undefined;
    try {
      stat = fs.lstatSync(candidate, NO_ENTRY);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return { kind: 'unreadable', at: candidate, code, via };
    }
    if (stat === undefined) {
      // Nothing there. Where the path would lead once something is: a dangling link aimed outside
      // stays a door someone else may open later.
      // An absolute candidate is already normal (joined from plain names): nothing to resolve.
      const wouldBe =
        pending.length === 0 && path.isAbsolute(candidate) ? candidate : path.resolve(candidate, ...pending);
      if (special(wouldBe)) return { kind: 'special', real: wouldBe, via };
      if (!inRepository(wouldBe)) return { kind: 'outside', real: wouldBe, dangling: true, via };
      return { kind: 'absent', via };
    }
    if (stat.isSymbolicLink()) {
      if (++hops > rules.maxLinkHops) return { kind: 'loop', via };
      const link = fs.readlinkSync(candidate);
      via.push(`${candidate} -> ${link}`);
      if (path.isAbsolute(link)) {
        const normalized = path.normalize(link);
        current = rootOf(normalized, path);
        pending = [...names(normalized.slice(current.length), sep), ...pending];
      } else {
        pending = [...link.split(/[\\/]/).filter((p) => p !== '' && p !== '.'), ...pending];
      }
      continue;
    }
    if (pending.length > 0 && !stat.isDirectory()) {
      // ENOTDIR: the rest cannot exist.
      return inRepository(candidate)
        ? { kind: 'absent', via }
        : { kind: 'outside', real: candidate, dangling: true, via };
    }
    current = candidate;
    if (pending.length === 0) {
      if (!inRepository(current)) return { kind: 'outside', real: current, dangling: false, via };
      const type = stat.isFile() ? 'file' : stat.isDirectory() ? 'directory' : 'other';
      return { kind: 'inside', real: current, type, size: stat.size, via };
    }
  }
  // The path named a directory reached through `..` or a link to one (no further lstat needed).
  if (!inRepository(current)) return { kind: 'outside', real: current, dangling: false, via };
  return { kind: 'inside', real: current, type: 'directory', size: 0, via };
}

/** Why a verdict cannot stand for a repository file, in the launcher's words; undefined when it can. */
export function pathProblem(
  verdict: PathVerdict,
  repository: string,
): { why: string; fix: string } | undefined {
  const through = verdict.via.length > 0 ? ` (${verdict.via.join(', ')})` : '';
  const fixLink =
    verdict.via.length > 0
      ? 'replace the link with a regular file inside the repository, or remove it'
      : 'keep the path inside the repository, or remove it';
  switch (verdict.kind) {
    case 'inside':
    case 'absent':
      return undefined;
    case 'special':
      return {
        why: `it leads to ${verdict.real}${through}, whose content belongs to the process that reads it (the launcher sees its own, Qwen would read Qwen's)`,
        fix: fixLink,
      };
    case 'outside':
      return {
        why: `it leads to ${verdict.real}${through}, outside the repository ${repository}${verdict.dangling ? ' (nothing is there yet)' : ''}`,
        fix: fixLink,
      };
    case 'loop':
      return { why: `its links never end${through}`, fix: fixLink };
    case 'unreadable':
      return {
        why: `${verdict.at} cannot be inspected (${verdict.code})${through}, so where it leads is unknown`,
        fix: 'make it readable or remove it',
      };
  }
}
