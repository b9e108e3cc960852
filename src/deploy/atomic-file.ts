// Replacing one file atomically (temp file in the same directory, fsync, rename), keeping its mode
// and — when run as root on a user's file — its owner, after a backup copy next to it. The temp-file
// and directory-fsync steps are the install writer's too (render/writer.ts).
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** Part of every temp file's name: the next render or rollback sweeps those a killed one left. */
export const TEMP_MARKER = '.qwen-managed-tmp-';

let tempCounter = 0;

/**
 * Writes a fresh temp file next to `target` (same directory, so renaming it over `target` is atomic)
 * with `mode` and, when given, `owner`, fsynced. Returns its path.
 */
export async function stageFile(
  target: string,
  content: string | Uint8Array,
  mode: number,
  owner?: { uid: number; gid: number },
): Promise<string> {
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}${TEMP_MARKER}${process.pid}-${tempCounter++}`,
  );
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
    if (owner !== undefined) await handle.chown(owner.uid, owner.gid).catch(() => {});
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/** Makes the renames in `dir` durable; directories cannot be opened for fsync on every platform. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r').catch(() => undefined);
  if (handle === undefined) return;
  await handle.sync().catch(() => {});
  await handle.close();
}

export interface ReplaceResult {
  /** The backup copy of the previous content, when the file existed. */
  backup?: string;
}

export function backupSuffix(now: string): string {
  return `.qwen-managed-backup-${now.replaceAll(':', '-')}`;
}

async function freeName(base: string): Promise<string> {
  for (let n = 0; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    if ((await fs.lstat(candidate).catch(() => undefined)) === undefined) return candidate;
  }
}

export async function replaceFileAtomically(
  file: string,
  content: string | Uint8Array,
  now: string,
): Promise<ReplaceResult> {
  const stat = await fs.stat(file).catch(() => undefined);
  const result: ReplaceResult = {};
  if (stat !== undefined) {
    const backup = await freeName(`${file}${backupSuffix(now)}`);
    await fs.copyFile(file, backup, constants.COPYFILE_EXCL);
    await fs.chmod(backup, stat.mode & 0o777);
    result.backup = backup;
  }
  // Root editing a user's settings file must not leave it owned by root.
  const temp =
    stat === undefined
      ? await stageFile(file, content, 0o644)
      : await stageFile(file, content, stat.mode & 0o777, { uid: stat.uid, gid: stat.gid });
  await fs.rename(temp, file);
  await fsyncDir(path.dirname(file));
  return result;
}
