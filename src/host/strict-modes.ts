// OpenSSH-style StrictModes for the admin-owned pins (POSIX): the file and every directory above it,
// up to `/`, must be owned by root or the administrator and must not be writable by group or others.
// Whoever can write any of them can swap what the launcher runs. Symlinks are followed component by
// component, so every directory the kernel would traverse is checked, not only the final path.
import { errorCode } from '../base/errors.js';
import { octalMode, posixQuote, show } from '../policy/quote.js';

export interface StatLike {
  uid: number;
  mode: number;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface StrictModesFs {
  lstatSync(path: string): StatLike;
  readlinkSync(path: string): string;
}

export const STICKY = 0o1000;
export const GROUP_OR_OTHER_WRITE = 0o022;
/** The file-type bits of a mode (`S_IFMT`), and the two types a walk tells apart (what Node's `Stats` methods test). */
export const FILE_TYPE = 0o170000;
export const SYMBOLIC_LINK = 0o120000;
export const DIRECTORY = 0o040000;
/** Linux's own limit on symlinks in one resolution (MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

function join(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** The directory above `dir` (an absolute POSIX path; `/` is its own). */
export function parent(dir: string): string {
  const cut = dir.lastIndexOf('/');
  return cut <= 0 ? '/' : dir.slice(0, cut);
}

/** `missing`: the first component that does not exist; `unreadable`: already reported as a problem. */
export type ChainResult =
  | { kind: 'ok'; realPath: string }
  | { kind: 'missing'; path: string }
  | { kind: 'unreadable' };

export class StrictModes {
  private readonly stats = new Map<string, StatLike | string>();
  private readonly found = new Map<string, string>();

  constructor(
    private readonly adminUid: number,
    private readonly fs: StrictModesFs,
  ) {}

  /** Every problem found so far, one line each, in the order met. */
  problems(): string[] {
    return [...this.found.values()];
  }

  /**
   * Walks the absolute path `target` from `/`, checks each entry it meets and returns the resolved
   * real path, or `missing` when some component does not exist (the caller says what was missing).
   */
  checkChain(target: string): ChainResult {
    const pending = target.split('/');
    let resolved = '/';
    this.checkEntry('/');
    let hops = 0;
    while (pending.length > 0) {
      const name = pending.shift()!;
      if (name === '' || name === '.') continue;
      if (name === '..') {
        resolved = parent(resolved);
        continue;
      }
      const next = join(resolved, name);
      const stat = this.checkEntry(next);
      if (typeof stat === 'string') {
        // Unreadable entries were reported by checkEntry; only absence is left for the caller to name.
        return stat === 'ENOENT' || stat === 'ENOTDIR'
          ? { kind: 'missing', path: next }
          : { kind: 'unreadable' };
      }
      if (!stat.isSymbolicLink()) {
        resolved = next;
        continue;
      }
      if (++hops > MAX_SYMLINKS) {
        this.add(`${next}\0loop`, `${show(target)} cannot be resolved: too many symbolic links`);
        return { kind: 'unreadable' };
      }
      let link: string;
      try {
        link = this.fs.readlinkSync(next);
      } catch (error) {
        this.add(`${next}\0stat`, `${show(next)} cannot be inspected (${errorCode(error)})`);
        return { kind: 'unreadable' };
      }
      // An absolute target restarts from `/`; a relative one continues from the link's directory.
      if (link.startsWith('/')) {
        resolved = '/';
        this.checkEntry('/');
      }
      pending.unshift(...link.split('/'));
    }
    return { kind: 'ok', realPath: resolved };
  }

  private add(key: string, message: string): void {
    if (!this.found.has(key)) this.found.set(key, message);
  }

  private lstat(path: string): StatLike | string {
    const cached = this.stats.get(path);
    if (cached !== undefined) return cached;
    let result: StatLike | string;
    try {
      result = this.fs.lstatSync(path);
    } catch (error) {
      result = errorCode(error);
    }
    this.stats.set(path, result);
    return result;
  }

  private checkEntry(path: string): StatLike | string {
    const stat = this.lstat(path);
    if (typeof stat === 'string') {
      if (stat !== 'ENOENT' && stat !== 'ENOTDIR') {
        this.add(`${path}\0stat`, `${show(path)} cannot be inspected (${stat})`);
      }
      return stat;
    }
    // Root and the administrator who rendered the install are the only owners trusted for pins.
    if (stat.uid !== 0 && stat.uid !== this.adminUid) {
      const admin = this.adminUid === 0 ? 'root' : `root or the administrator (uid ${this.adminUid})`;
      this.add(
        `${path}\0owner`,
        `${show(path)} is owned by uid ${stat.uid}, not ${admin}; fix: chown root ${posixQuote(path)}`,
      );
    }
    // A symlink's own mode means nothing; a sticky directory (like /tmp) stops others from
    // replacing entries they do not own, which the owner check above already covers.
    const sticky = stat.isDirectory() && (stat.mode & STICKY) !== 0;
    if (!stat.isSymbolicLink() && !sticky && (stat.mode & GROUP_OR_OTHER_WRITE) !== 0) {
      const what = stat.isDirectory() ? 'directory' : 'file';
      this.add(
        `${path}\0mode`,
        `${show(path)} is a ${what} writable by group or others (mode ${octalMode(stat.mode)}); ` +
          `fix: chmod go-w ${posixQuote(path)}`,
      );
    }
    return stat;
  }
}
