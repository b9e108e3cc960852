// The session's working directory must be the configured repository or lie beneath it.
// Named imports, not namespaces: a bundled namespace import copies every export at start-up.
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/** The file-system calls the check needs; injectable for tests. */
export interface CwdFs {
  realpathSync(path: string): string;
  statSync(path: string): { isDirectory(): boolean };
}

/** The path operations the check needs: node:path's by default, path.win32 in tests. */
export interface CwdPath {
  isAbsolute(path: string): boolean;
  relative(from: string, to: string): string;
  sep: string;
}

/** One realpath(3) call instead of an lstat per path component (realpathSync's JS walk). */
const NODE_FS: CwdFs = { realpathSync: realpathSync.native, statSync };

/**
 * Decided with path.relative after realpath on both sides — never a textual prefix comparison
 * (`/repo-other` is not inside `/repo`), and a symlink that escapes the root fails.
 */
export function isInsideRoot(
  cwd: string,
  realRoot: string,
  fs: CwdFs = NODE_FS,
  p: CwdPath = { isAbsolute, relative, sep },
): boolean {
  if (!p.isAbsolute(cwd)) return false;
  let real: string;
  try {
    real = fs.realpathSync(cwd);
    if (!fs.statSync(real).isDirectory()) return false;
  } catch {
    return false;
  }
  const rest = p.relative(realRoot, real);
  if (rest === '') return true;
  if (rest === '..' || rest.startsWith(`..${p.sep}`)) return false;
  // On Windows a different drive gives an absolute "relative" path.
  return !p.isAbsolute(rest);
}
