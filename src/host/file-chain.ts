// The entries the kernel meets opening a file: `/`, each directory it searches, every symbolic link it
// follows (and the directories the link's own name sits in), then the file. Over an injected lstat
// and readlink, so the broker (root, or its own user under systemd) and verify (root) walk alike; who
// may read or replace the file is then judged by src/host/accounts.ts over these stats.
import { errorCode } from '../base/errors.js';
import type { PathStat } from './accounts.js';
import type { StatLike } from './strict-modes.js';

export interface ChainStat extends StatLike {
  gid: number;
}

export interface ChainFs {
  lstatSync(path: string): ChainStat;
  readlinkSync(path: string): string;
}

export type FileChain =
  /**
   * `chain`: `/`, the directories along the real path, the file (what readBlocker judges);
   * `looked`: every directory a name was looked up in, a link's own included (whoever writes one
   * chooses what the next name is); `links`: the links followed.
   */
  | { kind: 'found'; chain: PathStat[]; looked: PathStat[]; links: PathStat[] }
  | { kind: 'missing'; path: string }
  /** A directory this process cannot search (`chain` ends at it), or a link it cannot read. */
  | { kind: 'hidden'; chain: PathStat[]; looked: PathStat[]; code: string };

/** Linux's own limit on symlinks in one resolution (MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

function statOf(path: string, stat: ChainStat): PathStat {
  return { path, uid: stat.uid, gid: stat.gid, mode: stat.mode & 0o7777, directory: stat.isDirectory() };
}

/** The walk of the absolute path `file`, component by component, as path resolution does it. */
export function walkFileChain(file: string, fs: ChainFs): FileChain {
  let rootStat: PathStat;
  try {
    rootStat = statOf('/', fs.lstatSync('/'));
  } catch (error) {
    return { kind: 'hidden', chain: [], looked: [], code: errorCode(error) };
  }
  let chain: PathStat[] = [rootStat];
  const looked = new Map<string, PathStat>();
  const links: PathStat[] = [];
  const pending = file.split('/');
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    const dir = chain.at(-1)!;
    if (name === '..') {
      if (chain.length > 1) chain.pop();
      continue;
    }
    looked.set(dir.path, dir);
    const next = dir.path === '/' ? `/${name}` : `${dir.path}/${name}`;
    let stat: ChainStat;
    try {
      stat = fs.lstatSync(next);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', path: next };
      return { kind: 'hidden', chain, looked: [...looked.values()], code };
    }
    if (!stat.isSymbolicLink()) {
      chain.push(statOf(next, stat));
      continue;
    }
    links.push(statOf(next, stat));
    let target: string;
    try {
      if (++hops > MAX_SYMLINKS) throw Object.assign(new Error('loop'), { code: 'ELOOP' });
      target = fs.readlinkSync(next);
    } catch (error) {
      return { kind: 'hidden', chain, looked: [...looked.values()], code: errorCode(error) };
    }
    // An absolute target restarts from `/`; a relative one continues from the link's directory.
    if (target.startsWith('/')) chain = [rootStat];
    pending.unshift(...target.split('/'));
  }
  return { kind: 'found', chain, looked: [...looked.values()], links };
}
