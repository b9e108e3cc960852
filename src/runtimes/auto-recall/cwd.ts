// Step 3: the session's working directory must be the configured repository or lie beneath it.
import * as nodeFs from 'node:fs';
import * as path from 'node:path';

/**
 * Decided with path.relative after realpath on both sides — never a textual prefix comparison
 * (`/repo-other` is not inside `/repo`), and a symlink that escapes the root fails.
 */
export function isInsideRoot(
  cwd: string,
  realRoot: string,
  fs: Pick<typeof nodeFs, 'realpathSync' | 'statSync'> = nodeFs,
  p: typeof path = path,
): boolean {
  if (!p.isAbsolute(cwd)) return false;
  let real: string;
  try {
    real = fs.realpathSync(cwd);
    if (!fs.statSync(real).isDirectory()) return false;
  } catch {
    return false;
  }
  const relative = p.relative(realRoot, real);
  if (relative === '') return true;
  if (relative === '..' || relative.startsWith(`..${p.sep}`)) return false;
  // On Windows a different drive gives an absolute "relative" path.
  return !p.isAbsolute(relative);
}
