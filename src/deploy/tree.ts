// Reads an install tree (or a staged one) into memory for verify, rollback and re-render. I/O only;
// the checks over it are pure.
import * as fsSync from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { BACKUPS_DIR, type InstallManifest, MANIFEST_FILE } from '../contracts/install-manifest.js';
import { ALL_PROFILE_KINDS } from '../contracts/launch-plan.js';
import { BIN_FILES, PROFILE_FILES } from '../contracts/layout.js';
import { RUNTIME_FILES } from '../contracts/runtime-files.js';
import { parseManifestText } from './render/manifest.js';
import type { PreviousInstall } from './render/render.js';

export interface TreeFile {
  bytes: Buffer;
  /** Permission bits (`stat.mode & 0o777`). */
  mode: number;
}

export interface InstallTree {
  root: string;
  /** Regular files by `/`-separated relative path, manifest.json included, backups/ excluded. */
  files: Map<string, TreeFile>;
  /** Entries that are neither regular files nor directories (symlinks, sockets, …). */
  irregular: string[];
  /** The parsed manifest, when manifest.json exists and matches the pinned shape. */
  manifest?: InstallManifest;
}

async function walk(root: string, rel: string, tree: InstallTree): Promise<void> {
  const entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (rel === '' && entry.name === BACKUPS_DIR) continue;
    if (entry.isDirectory()) await walk(root, child, tree);
    else if (entry.isFile()) {
      const file = path.join(root, child);
      const [bytes, stat] = await Promise.all([fs.readFile(file), fs.lstat(file)]);
      tree.files.set(child, { bytes, mode: stat.mode & 0o777 });
    } else tree.irregular.push(child);
  }
}

export async function loadInstallTree(root: string): Promise<InstallTree> {
  const tree: InstallTree = { root, files: new Map(), irregular: [] };
  await walk(root, '', tree);
  const manifest = tree.files.get(MANIFEST_FILE);
  if (manifest !== undefined) {
    const parsed = parseManifestText(manifest.bytes.toString('utf8'));
    if (parsed !== undefined) tree.manifest = parsed;
  }
  return tree;
}

/** The tree as render's `previous` input (its manifest and bytes), or undefined without a valid manifest. */
export function previousInstallOf(tree: InstallTree): PreviousInstall | undefined {
  if (tree.manifest === undefined) return undefined;
  return { manifest: tree.manifest, files: new Map([...tree.files].map(([rel, f]) => [rel, f.bytes])) };
}

/** Does `root` exist as a directory? */
export async function isDirectory(root: string): Promise<boolean> {
  return (await fs.stat(root).catch(() => undefined))?.isDirectory() === true;
}

/**
 * Files only an install tree holds (render always writes them): a directory with none of them is not
 * an install. Not bare `bin/`: `/` or `/usr` has one of its own, and walking it read the whole disk
 * (and failed on /proc as an internal error).
 */
export const INSTALL_MARKS: readonly string[] = [
  MANIFEST_FILE,
  ...Object.values(BIN_FILES).flatMap((names) => names.map((name) => `bin/${name}`)),
  `runtime/${RUNTIME_FILES.launcher}`,
  `runtime/${RUNTIME_FILES.launcherStart}`,
  ...ALL_PROFILE_KINDS.map((kind) => `profiles/${kind}/${PROFILE_FILES.launchPlan}`),
];

/** The calls notAnInstallTree makes (node:fs has them; plan passes its injected file system). */
export interface InstallMarksFs {
  statSync(path: string): { isDirectory(): boolean };
  lstatSync(path: string): unknown;
}

/**
 * Why `dir` is not an install tree to read (not a directory, or none of INSTALL_MARKS in it), with
 * the fix — checked before anything under it is read (`--dir /` would otherwise walk the whole disk);
 * undefined when it looks like one.
 */
export function notAnInstallTree(dir: string, marksFs: InstallMarksFs = fsSync): string | undefined {
  const found = <T>(look: () => T): T | undefined => {
    try {
      return look();
    } catch {
      return undefined;
    }
  };
  if (found(() => marksFs.statSync(dir))?.isDirectory() !== true) return `--dir ${dir} is not a directory`;
  const marked = INSTALL_MARKS.some(
    (name) => found(() => marksFs.lstatSync(path.join(dir, name))) !== undefined,
  );
  if (marked) return undefined;
  return `--dir ${dir} is not an install tree (it has none of ${MANIFEST_FILE}, bin/launch-qwen, runtime/${RUNTIME_FILES.launcher}, profiles/<kind>/${PROFILE_FILES.launchPlan}). Fix: point --dir at the installDir of a rendered deployment, or at a \`render --out\` staging directory`;
}
