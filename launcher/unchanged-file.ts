// Whether a private file the launcher writes at each start is already exactly what it would write:
// replacing an unchanged file by rename cost 1–2 ms per start here (docs/performance.md, the
// `unchanged-defaults` row), so the launcher leaves it alone.

export interface UnchangedFileFs {
  lstatSync(path: string): { uid: number; mode: number; isFile(): boolean };
  readFileSync(path: string, encoding: 'utf8'): string;
}

/**
 * True when `file` is a regular file (a symlink never counts: it is replaced, not followed), owned
 * by `uid`, mode 0600, with exactly `content`.
 */
export function isUnchangedPrivateFile(
  file: string,
  content: string,
  uid: number,
  fs: UnchangedFileFs,
): boolean {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile() || stat.uid !== uid || (stat.mode & 0o777) !== 0o600) return false;
    return fs.readFileSync(file, 'utf8') === content;
  } catch {
    // Missing or unreadable: written anew.
    return false;
  }
}
