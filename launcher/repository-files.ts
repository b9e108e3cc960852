// The files of the repository Qwen opens by itself, judged with the one path rule
// (src/policy/repository-path.ts): resolved link by link from the repository's real root, so the
// decision is the same from whatever directory the launcher was started. Everything Qwen opens from
// `.qwen/`, the context files it puts into the system prompt with every `@` import they follow, and
// its ignore files must lead to a regular file (or directory) inside the repository — nothing
// outside, nothing under /proc, /sys or /dev — or the launch is refused, naming the file.

import { REPOSITORY_POLICY, type Refusal } from '../src/policy/repository.js';
import {
  judgePath,
  type LinkFs,
  type LinkStat,
  NO_ENTRY,
  type PathSyntax,
  type PathVerdict,
  pathProblem,
  rootOf,
} from '../src/policy/repository-path.js';
import {
  contextFileCandidates,
  findImports,
  findProjectRoot,
  IMPORT_MAX_DEPTH,
  importTarget,
} from '../src/qwen/context-files.js';
import type { PathOps } from '../src/qwen/env-files.js';

export interface FilesFs extends LinkFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  readFileSync(path: string): Uint8Array;
  readdirSync(path: string): string[];
  /** Throws when the user lacks `mode` (git's own test of a git directory's `objects` and `refs`). */
  accessSync(path: string, mode: number): void;
}

export type FullPathOps = PathOps & PathSyntax & { relative(from: string, to: string): string };

/** A file of the repository as Qwen names it (`file`) and where it really is. */
export interface JudgedFile {
  file: string;
  real: string;
  size: number;
}

const WHOLE = '(the whole file)';

/** A FIFO, socket or device where Qwen reads a file: it blocks Qwen (measured: a FIFO QWEN.md or import held Qwen at "Initializing…"). */
const NOT_REGULAR = {
  why: 'it is not a regular file (a FIFO, socket or device), so what Qwen would read cannot be checked',
  fix: 'remove it',
};

/**
 * The judge for one launch: verdicts are cached per path, refusals collected once per file. Paths
 * written below the repository root must stay in it; any other path (the user's home files, parent
 * directories) only must not pass through a special root.
 */
export class RepositoryPaths {
  readonly refused: Refusal[] = [];
  private readonly verdicts = new Map<string, PathVerdict>();
  private readonly named = new Set<string>();
  /**
   * Each entry looked at once per launch: the paths judged share their parents (`.env` and the
   * context files of every directory up to `/`). Errors other than a missing entry are not kept.
   */
  private readonly looks = new Map<string, LinkStat | undefined>();
  private readonly linkFs: LinkFs = {
    lstatSync: (file) => {
      if (this.looks.has(file)) return this.looks.get(file);
      const stat = this.fs.lstatSync(file, NO_ENTRY);
      this.looks.set(file, stat);
      return stat;
    },
    readlinkSync: (file) => this.fs.readlinkSync(file),
  };

  /**
   * Each path normalized once per launch: `check` asks whether it is in the repository, `judge` for
   * its file-system root, `judgePath` for its components — three `normalize` of the same string.
   */
  private readonly normals = new Map<string, string>();
  private readonly syntax: PathSyntax;

  constructor(
    /** The repository's real root. */
    readonly root: string,
    readonly fs: FilesFs,
    readonly path: FullPathOps,
  ) {
    this.syntax = { ...path, normalize: (file) => this.normalize(file) };
  }

  private normalize(file: string): string {
    let normal = this.normals.get(file);
    if (normal === undefined) {
      normal = this.path.normalize(file);
      this.normals.set(file, normal);
    }
    return normal;
  }

  /** True for a path written below the repository root (the repository decides where it leads). */
  inRepository(file: string): boolean {
    const normalized = this.normalize(file);
    return normalized === this.root || normalized.startsWith(`${this.root}${this.path.sep}`);
  }

  judge(file: string, controlled = this.inRepository(file)): PathVerdict {
    const key = `${controlled ? 'r' : 'a'}:${file}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      const anchor = controlled ? this.root : this.fsRoot(file);
      verdict = judgePath(file, { root: anchor, fs: this.linkFs, path: this.syntax });
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }

  /**
   * The verdict, with a refusal recorded (once per file and key) when it cannot stand. `controlled`:
   * the name itself comes from the repository (an import line, a setting), so it must stay inside
   * wherever it is written.
   */
  check(file: string, key = '(where it leads)', controlled = this.inRepository(file)): PathVerdict {
    const verdict = this.judge(file, controlled);
    // Outside the repository, what the user cannot look at Qwen (the same user) cannot read either.
    if (!controlled && verdict.kind === 'unreadable') return { kind: 'absent', via: verdict.via };
    const problem = pathProblem(verdict, this.root);
    if (problem === undefined) return verdict;
    // One line per cause: a directory of the repository that already leads astray (`.qwen` linked
    // out) is named instead of every file below it.
    const ancestor = this.inRepository(file) ? this.refusedAncestor(file) : undefined;
    if (ancestor !== undefined) this.refuse(ancestor);
    else this.refuse({ file, key, ...problem });
    return verdict;
  }

  private refusedAncestor(file: string): Refusal | undefined {
    const rel = this.path.relative(this.root, file).split(this.path.sep);
    let dir = this.root;
    for (const name of rel.slice(0, -1)) {
      dir = this.path.join(dir, name);
      const problem = pathProblem(this.judge(dir, true), this.root);
      if (problem !== undefined) return { file: dir, key: '(where it leads)', ...problem };
    }
    return undefined;
  }

  refuse(refusal: Refusal): void {
    const id = `${refusal.file}\0${refusal.key}`;
    if (this.named.has(id)) return;
    this.named.add(id);
    this.refused.push(refusal);
  }

  /** An existing regular file the rule allows, or undefined (absent, refused, or not a file). */
  regularFile(file: string, verdict: PathVerdict): JudgedFile | undefined {
    if (verdict.kind === 'inside' && verdict.type === 'file')
      return { file, real: verdict.real, size: verdict.size };
    return undefined;
  }

  /** Reads a judged file (at its real path: no link is followed again), or records why it cannot be judged. */
  read(judged: JudgedFile): string | undefined {
    if (judged.size > REPOSITORY_POLICY.envFiles.maxBytes) {
      this.refuse({
        file: judged.file,
        key: WHOLE,
        why: `it is larger than ${REPOSITORY_POLICY.envFiles.maxBytes} bytes, so it is not checked`,
        fix: 'shrink it or remove it',
      });
      return undefined;
    }
    try {
      return this.fs.readFileSync(judged.real, 'utf8');
    } catch (error) {
      this.refuse({
        file: judged.file,
        key: WHOLE,
        why: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        fix: 'make it readable or remove it',
      });
      return undefined;
    }
  }

  /** A file Qwen reads by name (a settings file, an env file): judged, then required to be a regular file. */
  readRequired(file: string): { judged: JudgedFile; text: string } | undefined {
    const verdict = this.check(file);
    if (verdict.kind !== 'inside') return undefined;
    const judged = this.regularFile(file, verdict);
    if (judged === undefined) {
      this.refuse({
        file,
        key: WHOLE,
        why: 'it is not a regular file, so it cannot be checked',
        fix: 'replace it with a regular file or remove it',
      });
      return undefined;
    }
    const text = this.read(judged);
    return text === undefined ? undefined : { judged, text };
  }

  private fsRoot(file: string): string {
    return rootOf(this.normalize(file), this.path);
  }
}

/**
 * Every regular file below `top` (a directory of the repository), as Qwen's loaders reach them: they
 * follow links (settings, agents, commands with `glob({follow: true})`, rules, output styles,
 * workflows, an `@{dir}` injection), so every entry must lead inside the repository; a FIFO, socket
 * or device refuses (Qwen would block on it or read another process's data). Directories reached
 * through links are walked once (by their real path). Files are named as Qwen names them.
 */
export function walkJudged(paths: RepositoryPaths, top: string): JudgedFile[] {
  const files: JudgedFile[] = [];
  const start = paths.check(top);
  if (start.kind !== 'inside' || start.type !== 'directory') return files;
  const limit = REPOSITORY_POLICY.paths.maxWalkEntries;
  const seen = new Set<string>([start.real]);
  const queue: Array<{ dir: string; real: string }> = [{ dir: top, real: start.real }];
  let entries = 0;
  while (queue.length > 0) {
    const { dir, real } = queue.shift()!;
    let names: string[];
    try {
      names = paths.fs.readdirSync(real).sort();
    } catch (error) {
      paths.refuse({
        file: dir,
        key: '(the directory)',
        why: `it cannot be listed (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
        fix: 'make it readable or remove it',
      });
      continue;
    }
    for (const name of names) {
      if (++entries > limit) {
        paths.refuse({
          file: top,
          key: '(the directory)',
          why: `it holds more than ${limit} entries, so it is not checked`,
          fix: 'remove what Qwen does not need from it',
        });
        return files;
      }
      const file = paths.path.join(dir, name);
      const verdict = paths.check(file);
      if (verdict.kind !== 'inside') continue;
      if (verdict.type === 'directory') {
        if (!seen.has(verdict.real)) {
          seen.add(verdict.real);
          queue.push({ dir: file, real: verdict.real });
        }
      } else if (verdict.type === 'file') {
        files.push({ file, real: verdict.real, size: verdict.size });
      } else {
        paths.refuse({ file, key: WHOLE, ...NOT_REGULAR });
      }
    }
  }
  return files;
}

/**
 * The context file names at the repository root, which Qwen's `/init` writes in every folder, trusted
 * or not: it reads the first name there, asks "regenerate?" when it holds text, then empties it — or
 * creates it when nothing is there — following links (Qwen 0.24.4, measured: `QWEN.md` linked to a file
 * of the home emptied that file). Each must lead inside the repository; one that is a FIFO, socket or
 * device refuses too (`/init` would block Qwen reading it).
 */
export function judgeInitTargets(paths: RepositoryPaths, names: readonly string[]): void {
  for (const name of names) {
    const file = paths.path.join(paths.root, name);
    const verdict = paths.check(file);
    if (verdict.kind === 'inside' && verdict.type === 'other')
      paths.refuse({ file, key: WHOLE, ...NOT_REGULAR });
  }
}

export interface ContextInput {
  paths: RepositoryPaths;
  home: string;
  qwenHome: string;
  /** `context.fileName` as the managed system settings pin it. */
  names: readonly string[];
  trusted: boolean;
}

/**
 * Every context file Qwen would read, and every `@` import it would follow from them: a file below
 * the repository root, or an import named by a repository file, must resolve inside the repository.
 * Context files of the user and of parent directories are not the repository's; only the special
 * roots are refused for them, and their imports into the repository are judged like the rest.
 */
export function judgeContextFiles(input: ContextInput): void {
  const { paths } = input;
  const { path, fs } = paths;
  const isProjectRoot = (dir: string): boolean => {
    try {
      const stat = fs.lstatSync(path.join(dir, '.git'), NO_ENTRY);
      return stat !== undefined && (stat.isDirectory() || stat.isFile());
    } catch {
      return false;
    }
  };
  const candidates = contextFileCandidates({
    cwd: paths.root,
    home: input.home,
    qwenHome: input.qwenHome,
    names: input.names,
    trusted: input.trusted,
    isProjectRoot,
    exists: (file) => {
      const verdict = paths.judge(file);
      return verdict.kind !== 'absent';
    },
    path,
  });
  // Qwen follows a file again on every branch that names it (its "seen" set is per branch and keyed
  // by the name), resolving its imports from the name's directory: so is it here, by name, root and
  // origin. A file already followed as shallow or shallower saw everything this visit could.
  const followedAt = new Map<string, number>();
  const follow = (judged: JudgedFile, depth: number, projectRoot: string, fromRepository: boolean): void => {
    if (depth >= IMPORT_MAX_DEPTH) return;
    const key = `${judged.file}\0${projectRoot}\0${fromRepository}`;
    const seenAt = followedAt.get(key);
    if (seenAt !== undefined && seenAt <= depth) return;
    followedAt.set(key, depth);
    const text = paths.read(judged);
    if (text === undefined) return;
    for (const importPath of findImports(text)) {
      const target = importTarget(importPath, judged.file, projectRoot, path);
      if (target === undefined) continue;
      // The name of the import is the repository's when the importing file is.
      const controlled = fromRepository || paths.inRepository(target);
      const verdict = paths.judge(target, controlled);
      if (!controlled && verdict.kind === 'unreadable') continue;
      // Reported against the importing file: that is the line to change.
      const problem = pathProblem(verdict, paths.root);
      if (problem !== undefined) {
        paths.refuse({ file: judged.file, key: `@${importPath}`, ...problem });
        continue;
      }
      if (controlled && verdict.kind === 'inside' && verdict.type === 'other') {
        paths.refuse({ file: judged.file, key: `@${importPath}`, ...NOT_REGULAR });
        continue;
      }
      const child = paths.regularFile(target, verdict);
      if (child !== undefined) follow(child, depth + 1, projectRoot, controlled);
    }
  };
  for (const file of candidates) {
    const verdict = paths.check(file);
    if (verdict.kind === 'inside' && verdict.type === 'other' && paths.inRepository(file))
      paths.refuse({ file, key: WHOLE, ...NOT_REGULAR });
    const judged = paths.regularFile(file, verdict);
    if (judged === undefined) continue;
    const projectRoot = findProjectRoot(path.dirname(file), { isProjectRoot, path }) ?? path.dirname(file);
    follow(judged, 0, projectRoot, paths.inRepository(file));
  }
}
