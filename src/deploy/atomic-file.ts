// Replacing one file atomically (temp file in the same directory, fsync, rename), keeping its mode
// and — when run as root on a user's file — its owner, after a backup copy next to it.
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

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
  const mode = stat === undefined ? 0o644 : stat.mode & 0o777;
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.qwen-managed-tmp-${process.pid}-${Date.now()}`,
  );
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    await handle.writeFile(content);
    await handle.chmod(mode);
    // Root editing a user's settings file must not leave it owned by root.
    if (stat !== undefined) await handle.chown(stat.uid, stat.gid).catch(() => {});
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temp, file);
  const dir = await fs.open(path.dirname(file), 'r').catch(() => undefined);
  if (dir !== undefined) {
    await dir.sync().catch(() => {});
    await dir.close();
  }
  return result;
}
