// Applies a rendered install to disk. Crash safety (a render killed at any instant):
// 1. every new file is first written to a temp file in its own directory and fsynced;
// 2. each target is then replaced by rename (atomic: the old or the new file, never a mix), after its
//    old version was hard-linked (or copied) under backups/<stamp>/;
// 3. manifest.json is written LAST, so a killed render never leaves a manifest describing files that
//    do not exist yet; files no longer rendered are retired to backups/ only after it.
// Stale temp files of a killed render are swept by the next one, which also finishes a killed first
// render (its files without a manifest yet).

import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AdminInputError } from '../../base/errors.js';
import { sha256Hex } from '../../base/hash.js';
import { BACKUPS_DIR, MANIFEST_FILE } from '../../contracts/install-manifest.js';
import { fsyncDir, stageFile, TEMP_MARKER } from '../atomic-file.js';
import { type InstallLock, LOCK_FILE, withInstallLock } from './lock.js';
import { parseManifestText } from './manifest.js';
import type { RenderedInstall } from './render.js';
import { DIRECTORY_MODE, FILE_MODE } from './types.js';

/** The marker of staged temp files (atomic-file.ts), which this writer sweeps. */

export type WriteEvent =
  | { step: 'stage'; path: string }
  | { step: 'replace'; path: string }
  | { step: 'manifest'; path: string }
  | { step: 'retire'; path: string };

export interface WriteOptions {
  /** ISO time: names the backup folder. */
  now: string;
  onEvent?: (event: WriteEvent) => void;
  /** The install lock, when the caller already holds it (it read the tree under it); else taken here. */
  lock?: InstallLock;
}

export interface WriteResult {
  written: string[];
  unchanged: string[];
  retired: string[];
  /** Written over a version that is not the one manifest.json lists (edited by hand): kept in backups/. */
  edited: string[];
  /** Retired though manifest.json never listed them (put there by hand): moved to backups/. */
  unlisted: string[];
  /** Relative path of the backup folder, when anything was replaced or retired. */
  backupDir?: string;
}

export class WriterError extends AdminInputError {
  override readonly name = 'WriterError';
}

interface Existing {
  bytes: Buffer;
  mode: number;
  regular: boolean;
}

async function listTree(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (rel === '' && (entry.name === BACKUPS_DIR || entry.name === LOCK_FILE)) continue;
    if (entry.isDirectory()) out.push(...(await listTree(root, child)));
    else out.push(child);
  }
  return out.sort();
}

async function readExisting(file: string): Promise<Existing | undefined> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (stat === undefined) return undefined;
  if (stat.isDirectory()) throw new WriterError(`${file} is a directory where a file belongs`);
  if (!stat.isFile()) return { bytes: Buffer.alloc(0), mode: 0, regular: false };
  return { bytes: await fs.readFile(file), mode: stat.mode & 0o777, regular: true };
}

/** mkdir -p below root, refusing symlinked directories (a link could redirect writes out of the tree). */
async function ensureDir(root: string, relDir: string): Promise<void> {
  let current = root;
  for (const part of relDir.split('/').filter((p) => p !== '')) {
    current = path.join(current, part);
    const stat = await fs.lstat(current).catch(() => undefined);
    if (stat === undefined) {
      await fs.mkdir(current, { mode: DIRECTORY_MODE });
      await fs.chmod(current, DIRECTORY_MODE);
    } else if (!stat.isDirectory()) {
      throw new WriterError(
        `${current} must be a directory (found ${stat.isSymbolicLink() ? 'a symlink' : 'a file'})`,
      );
    }
  }
}

/**
 * Refuses, before anything is written, a symlink (or a file) where a target's directory belongs: the
 * unchanged comparison would read through the link and retire it, and a write would leave the tree.
 */
async function assertRealDirs(root: string, rels: Iterable<string>): Promise<void> {
  const checked = new Set<string>();
  for (const rel of rels) {
    const parts = path.posix
      .dirname(rel)
      .split('/')
      .filter((p) => p !== '' && p !== '.');
    for (let n = 1; n <= parts.length; n++) {
      const relDir = parts.slice(0, n).join('/');
      if (checked.has(relDir)) continue;
      checked.add(relDir);
      const current = path.join(root, relDir);
      const stat = await fs.lstat(current).catch(() => undefined);
      if (stat === undefined) break;
      if (stat.isDirectory()) continue;
      const found = stat.isSymbolicLink()
        ? `a symlink to ${await fs.readlink(current).catch(() => '?')}`
        : 'a file';
      throw new WriterError(
        `${current} must be a directory (found ${found}); nothing was changed. Fix: replace it with a real directory (move the link away; render writes the files)`,
      );
    }
  }
}

async function backupPath(root: string, stamp: string): Promise<string> {
  for (let n = 0; ; n++) {
    const rel = `${BACKUPS_DIR}/${stamp}${n === 0 ? '' : `-${n}`}`;
    if ((await fs.lstat(path.join(root, rel)).catch(() => undefined)) === undefined) return rel;
  }
}

export async function writeInstall(
  root: string,
  rendered: RenderedInstall,
  options: WriteOptions,
): Promise<WriteResult> {
  if (options.lock === undefined) {
    return withInstallLock(root, options.now, (lock) => writeInstall(root, rendered, { ...options, lock }));
  }
  const emit = options.onEvent ?? (() => {});
  await fs.mkdir(root, { recursive: true, mode: DIRECTORY_MODE });
  const present = await listTree(root);
  const targets = new Map(rendered.files);
  targets.set(MANIFEST_FILE, { bytes: new TextEncoder().encode(rendered.manifestText), mode: FILE_MODE });
  // Never scatter an install over an unrelated directory (and never retire its files); one holding
  // only files this render writes is a first render that was interrupted, which this one finishes.
  const foreign = present.filter((rel) => !rel.includes(TEMP_MARKER) && !targets.has(rel));
  if (foreign.length > 0 && !present.includes(MANIFEST_FILE)) {
    const shown =
      foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length} files)` : '');
    throw new WriterError(
      `${root} is not empty and has no ${MANIFEST_FILE}: it holds ${shown}, which this render does not write; nothing was written. Fix: render into an empty directory or an install (another installDir, or --out DIR)`,
    );
  }
  await assertRealDirs(root, targets.keys());
  for (const rel of present.filter((r) => path.posix.basename(r).includes(TEMP_MARKER))) {
    await fs.rm(path.join(root, rel), { force: true });
  }
  const result: WriteResult = { written: [], unchanged: [], retired: [], edited: [], unlisted: [] };
  // What the last render wrote: a file that differs from it was edited since, and the admin is told.
  const listed = present.includes(MANIFEST_FILE)
    ? parseManifestText(await fs.readFile(path.join(root, MANIFEST_FILE), 'utf8').catch(() => ''))?.files
    : undefined;
  const staged = new Map<string, { temp: string; existed: boolean }>();

  // Phase 1: stage every changed file next to its target; nothing visible changes yet.
  for (const [rel, file] of targets) {
    const target = path.join(root, rel);
    const existing = await readExisting(target);
    if (
      existing?.regular === true &&
      existing.mode === file.mode &&
      Buffer.from(file.bytes).equals(existing.bytes)
    ) {
      result.unchanged.push(rel);
      continue;
    }
    const recorded = listed?.[rel]?.sha256;
    if (existing?.regular === true && recorded !== undefined && sha256Hex(existing.bytes) !== recorded)
      result.edited.push(rel);
    const relDir = path.posix.dirname(rel);
    await ensureDir(root, relDir === '.' ? '' : relDir);
    emit({ step: 'stage', path: rel });
    staged.set(rel, {
      temp: await stageFile(target, file.bytes, file.mode),
      existed: existing !== undefined,
    });
  }
  const retiring = present.filter(
    (rel) => !targets.has(rel) && !path.posix.basename(rel).includes(TEMP_MARKER),
  );
  if (staged.size === 0 && retiring.length === 0) return result;

  let backupRel: string | undefined;
  const backup = async (rel: string, move: boolean) => {
    backupRel ??= await backupPath(root, options.now.replaceAll(':', '-'));
    const destination = path.join(root, backupRel, rel);
    await fs.mkdir(path.dirname(destination), { recursive: true, mode: 0o700 });
    const source = path.join(root, rel);
    if (move) await fs.rename(source, destination);
    else await fs.link(source, destination).catch(() => fs.copyFile(source, destination));
  };

  // Phase 2: replace targets one by one (each rename is atomic); the manifest waits.
  const touchedDirs = new Set<string>();
  for (const [rel, { temp, existed }] of staged) {
    if (rel === MANIFEST_FILE) continue;
    emit({ step: 'replace', path: rel });
    if (existed) await backup(rel, false);
    await fs.rename(temp, path.join(root, rel));
    touchedDirs.add(path.dirname(path.join(root, rel)));
    result.written.push(rel);
  }
  for (const dir of touchedDirs) await fsyncDir(dir);

  // Phase 3: the manifest, last.
  const manifest = staged.get(MANIFEST_FILE);
  if (manifest !== undefined) {
    emit({ step: 'manifest', path: MANIFEST_FILE });
    if (manifest.existed) await backup(MANIFEST_FILE, false);
    await fs.rename(manifest.temp, path.join(root, MANIFEST_FILE));
    await fsyncDir(root);
    result.written.push(MANIFEST_FILE);
  }

  // Phase 4: retire what is no longer rendered (a removed profile): moved to backups, never deleted.
  for (const rel of retiring) {
    emit({ step: 'retire', path: rel });
    await backup(rel, true);
    result.retired.push(rel);
    if (listed !== undefined && !Object.hasOwn(listed, rel)) result.unlisted.push(rel);
  }
  for (const rel of retiring) await removeEmptyParents(root, path.posix.dirname(rel));
  if (backupRel !== undefined) result.backupDir = backupRel;
  return result;
}

async function removeEmptyParents(root: string, relDir: string): Promise<void> {
  let current = relDir;
  while (current !== '.' && current !== '') {
    const removed = await fs.rmdir(path.join(root, current)).then(
      () => true,
      () => false,
    );
    if (!removed) return;
    current = path.posix.dirname(current);
  }
}
