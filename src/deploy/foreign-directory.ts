// The install tree's directories held to the launcher's StrictModes before render or rollback writes
// into them as root: the directory itself, every directory above it up to `/`, and (for a tree that is
// already there) every directory inside it. Whoever may rename entries anywhere on that path could
// swap a directory for a link between the writer's checks and its writes — and the launcher refuses
// such an install anyway. I/O only (lstat, readlink, readdir); the judgement is StrictModes'.
import * as fsSync from 'node:fs';
import * as path from 'node:path';
import { errorCode } from '../base/errors.js';
import { BACKUPS_DIR } from '../contracts/install-manifest.js';
import { StrictModes } from '../host/strict-modes.js';

/** The directories inside `root` (not through links), `backups/` itself but not the folders in it. */
function treeDirectories(root: string, rel = ''): string[] {
  let entries: fsSync.Dirent[];
  try {
    entries = fsSync.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    out.push(child);
    // The writer only adds a new folder under backups/: what older ones hold is never written again.
    if (!(rel === '' && entry.name === BACKUPS_DIR)) out.push(...treeDirectories(root, child));
  }
  return out;
}

/**
 * Every StrictModes problem of `dir`, the directories above it and the directories in it, one line
 * each with its fix (none: nothing else may change the tree). A path the kernel will not look up (too
 * long, a link loop) is thrown as that file-system error, for the command to name with its fix.
 */
export function othersMayChange(dir: string, adminUid: number): string[] {
  try {
    fsSync.lstatSync(dir);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  const strict = new StrictModes(adminUid, fsSync);
  const chain = strict.checkChain(dir);
  if (chain.kind === 'ok') {
    for (const rel of treeDirectories(chain.realPath))
      strict.checkChain(path.posix.join(chain.realPath, rel));
  }
  return strict.problems();
}
