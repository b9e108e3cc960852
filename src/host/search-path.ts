// The pinned PATH on the host (POSIX). Qwen runs programs by name from it — `bash` for every hook,
// the approval guard and the write confirmation among them — so whoever can add a file to one of its
// directories, or create a missing one, chooses what runs in their place. Every entry is judged
// like a pin (StrictModes up to `/`), and more strictly at its last step: a sticky directory only
// stops others from replacing names they do not own, not from adding new ones.
import { octalMode, posixQuote, show } from '../policy/quote.js';
import {
  GROUP_OR_OTHER_WRITE,
  parent,
  STICKY,
  type StatLike,
  StrictModes,
  type StrictModesFs,
} from './strict-modes.js';

function lstat(fs: StrictModesFs, path: string): StatLike | undefined {
  try {
    return fs.lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Sticky and writable by group or others: anyone who may write it can add a program to it. */
function openToNewNames(stat: StatLike | undefined): stat is StatLike {
  if (stat === undefined || !stat.isDirectory()) return false;
  return (stat.mode & STICKY) !== 0 && (stat.mode & GROUP_OR_OTHER_WRITE) !== 0;
}

/** One line per problem of the PATH's absolute entries (its shape is judged where it is pinned). */
export function searchPathProblems(searchPath: string, adminUid: number, fs: StrictModesFs): string[] {
  const strict = new StrictModes(adminUid, fs);
  const problems: string[] = [];
  for (const entry of new Set(searchPath.split(':'))) {
    if (!entry.startsWith('/')) continue;
    const chain = strict.checkChain(entry);
    if (chain.kind === 'ok') {
      const stat = lstat(fs, chain.realPath);
      if (openToNewNames(stat)) {
        problems.push(
          `environment.PATH entry ${show(entry)} is a sticky directory writable by group or others (mode ${octalMode(stat.mode)}): anyone may add a program to it, bash for the hooks among them; fix: take it out of environment.PATH in deployment.json`,
        );
      }
    } else if (chain.kind === 'missing') {
      const where = parent(chain.path);
      const stat = lstat(fs, where);
      if (openToNewNames(stat)) {
        problems.push(
          `environment.PATH entry ${show(entry)} does not exist, and anyone may create it in ${show(where)} (mode ${octalMode(stat.mode)}); fix: take it out of environment.PATH in deployment.json, or create it as root (mkdir -p ${posixQuote(entry)})`,
        );
      }
    }
  }
  // A directory on the way that others may write is a problem for the PATH as for any pin.
  return [...strict.problems().map((p) => `environment.PATH: ${p}`), ...problems];
}
