// Finds the documents under the served folder and reads them. The only file-system code of the server.
import { constants, type Dirent } from 'node:fs';
import { type FileHandle, open, readdir, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { decodeUtf8 } from '../text/utf8.js';

export interface CorpusFile {
  /** Relative POSIX path from the served folder: the public name of the file. */
  path: string;
  /** The served folder's real path: a read must land inside it. */
  root: string;
  /** Resolved location read from (a symlink's target). */
  absolutePath: string;
  mtimeMs: number;
  /** Changes whenever content, size or times change: what re-indexing compares. */
  version: string;
}

export interface CorpusLimits {
  /** Larger files are skipped, not truncated. */
  maxFileBytes: number;
  /** The walk stops after this many files. */
  maxFiles: number;
}

export const DEFAULT_CORPUS_LIMITS: CorpusLimits = { maxFileBytes: 1024 * 1024, maxFiles: 10_000 };

const EXTENSIONS = /\.(md|markdown|txt)$/i;

/** A name the walk looks at: never a dotfile; for files, only `.md`, `.markdown`, `.txt`. */
export function isIndexableName(name: string, kind: 'file' | 'directory'): boolean {
  if (name.startsWith('.')) return false;
  return kind === 'directory' || EXTENSIONS.test(name);
}

/** True when `target` is `root` itself or lies beneath it (decided by `path.relative`, never a prefix test). */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function posixPath(root: string, absolutePath: string): string {
  return relative(root, absolutePath).split(sep).join('/');
}

async function fileEntry(
  root: string,
  absolutePath: string,
  limits: CorpusLimits,
): Promise<CorpusFile | undefined> {
  try {
    const info = await stat(absolutePath, { bigint: true });
    if (!info.isFile() || info.size > BigInt(limits.maxFileBytes)) return undefined;
    return {
      path: posixPath(root, absolutePath),
      root,
      absolutePath,
      // Nearest millisecond: times set from a JS Date come back as e.g. …677.999999 ms.
      mtimeMs: Number((info.mtimeNs + 500_000n) / 1_000_000n),
      version: `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
    };
  } catch {
    // Vanished between listing and stat: simply not part of this scan.
    return undefined;
  }
}

/** Lists the indexable files under `dir`, sorted by path. Rejects if `dir` is not a readable directory. */
export async function scanCorpus(
  dir: string,
  limits: CorpusLimits = DEFAULT_CORPUS_LIMITS,
): Promise<CorpusFile[]> {
  const root = await realpath(dir);
  if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  const files: CorpusFile[] = [];
  const pending = [root];
  while (pending.length > 0 && files.length < limits.maxFiles) {
    const current = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) {
        if (isIndexableName(entry.name, 'directory')) pending.push(full);
      } else if (entry.isFile()) {
        if (!isIndexableName(entry.name, 'file')) continue;
        const file = await fileEntry(root, full, limits);
        if (file !== undefined) files.push(file);
      } else if (entry.isSymbolicLink() && isIndexableName(entry.name, 'file')) {
        // Followed only to a file that stays inside the folder; linked directories could loop or duplicate.
        const target = await realpath(full).catch(() => undefined);
        if (target === undefined || !isInside(root, target)) continue;
        const file = await fileEntry(root, target, limits);
        if (file !== undefined) files.push({ ...file, path: posixPath(root, full) });
      }
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files.slice(0, limits.maxFiles);
}

/**
 * Reads a file as strict UTF-8; `undefined` when it vanished, grew past the cap, is not UTF-8, or is no
 * longer a regular file inside the folder. The folder may change between the scan and the read, so
 * the read judges the file it actually opened, not the path the scan saw.
 */
export async function readCorpusFile(
  file: CorpusFile,
  limits: CorpusLimits = DEFAULT_CORPUS_LIMITS,
): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    // Non-blocking open: a path swapped for a FIFO after the scan would otherwise hang every search.
    handle = await open(file.absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (!info.isFile() || info.size > limits.maxFileBytes) return undefined;
    // A name or a parent directory swapped for a symlink after the scan would serve any file the
    // server can read: the opened file itself must lie inside the folder.
    if (!isInside(file.root, await openedPath(handle, file.absolutePath))) return undefined;
    const bytes = await handle.readFile();
    if (bytes.length > limits.maxFileBytes) return undefined;
    return decodeUtf8(bytes);
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * Where the opened file is, as the kernel names it (Linux: the descriptor's link in /proc; a removed
 * file's name ends in " (deleted)", still inside). Elsewhere the path opened, re-resolved: a swap
 * between that open and this check is not seen there (docs/contracts.md, "Generic HTTP Search v1").
 */
async function openedPath(handle: FileHandle, opened: string): Promise<string> {
  if (process.platform === 'linux') return readlink(`/proc/self/fd/${handle.fd}`);
  return realpath(opened);
}
