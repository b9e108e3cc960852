// A shell line Qwen 0.24.4 runs with no dialog that reads outside the repository.
import { renderContentForDisplay } from '../../context/display.js';
import { dirname, type GuardHost, ownTempDir, resolve, within } from './host.js';
import {
  commandName,
  expandGlob,
  followsLinks,
  GLOB_LIMIT,
  isCompound,
  printsOnly,
  qwenAsksFor,
  type ShellWord,
  scriptOperand,
  shellCommands,
} from './shell-paths.js';

export const SHELL_OUTSIDE_REASON =
  'This shell command names a path outside the repository, and Qwen runs the commands it judges ' +
  'read-only (cat, head, grep, …) with no dialog wherever they read. Path: ';

export const SHELL_VARIABLE_REASON =
  "This shell command names a word bash expands ($VAR, ${…}, $'…'), which may be a path outside " +
  'the repository, and Qwen runs the commands it judges read-only with no dialog wherever they read. ' +
  'Word: ';

export const SHELL_FOLLOW_REASON =
  'This shell command follows every link it meets (grep -R, rg -L, find -L, tree -l), and a link ' +
  'in the repository may lead outside it; Qwen runs it with no dialog. Option: ';

// Devices any command may name: nothing of the developer's there.
const HARMLESS = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/random',
  '/dev/urandom',
  '/dev/stdin',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/tty',
]);
const GLOB = /[*?[]/;

/**
 * Why a shell line may read outside the repository with no dialog: a command Qwen 0.24.4 judges
 * read-only (`cat ~/.aws/credentials`, `grep -r key ~`, `head ../other/.env`; measured, no dialog)
 * names an absolute path, a `~`, a `..` step or a link (as bash would read it: quotes and escapes
 * removed, braces split, a glob cut at its directory) that exists outside the root, or a word bash
 * expands. A command Qwen asks for by itself (another program, a compound command) shows its whole
 * line in Qwen's dialog and is left to it: a second ask would be a second dialog.
 */
export function shellReadsOutside(
  command: string,
  directory: unknown,
  root: string,
  host: GuardHost,
): string | undefined {
  const commands = shellCommands(command);
  if (isCompound(commands)) return undefined;
  const judged = commands.filter((c) => !qwenAsksFor(c) && !printsOnly(c));
  if (judged.length === 0) return undefined;
  const realRoot = host.realpath(root);
  const exists = host.exists ?? (() => true);
  const cwd = typeof directory === 'string' && directory !== '' ? resolve(root, directory) : root;
  // Where a relative word may be read from: the directory, and every `cd` target of the line.
  const cwds = [cwd];
  const outside = (path: string): string | undefined => {
    const at = GLOB.test(path) ? dirname(path.slice(0, path.search(GLOB)) + 'x') : path;
    if (HARMLESS.has(at)) return undefined;
    const real = host.realpath(at);
    if (within(root, at) && within(realRoot, real)) return undefined;
    // Nothing there to read (a pattern such as '/api/'): no dialog.
    if (!within(root, at) && !exists(at)) return undefined;
    const own = ownTempDir(root, host);
    if (own !== undefined && within(own, at) && within(host.realpath(own), real)) return undefined;
    return real === at ? '' : real;
  };
  // A glob whose directory is in the repository: what bash would expand it to, each judged (a name
  // it matches may be a link out); too many names to look at asks.
  const globOutside = (path: string): string | undefined => {
    if (!GLOB.test(path) || host.readdir === undefined) return undefined;
    const matches = expandGlob(path, host.readdir);
    if (matches === undefined) return ` (more than ${GLOB_LIMIT} names to look at)`;
    for (const match of matches) {
      const real = outside(match);
      if (real !== undefined)
        return ` (bash expands it to ${renderContentForDisplay(match)}${linkNote(real)})`;
    }
    return undefined;
  };
  if (cwd !== root) {
    const real = outside(cwd);
    if (real !== undefined)
      return SHELL_OUTSIDE_REASON + renderContentForDisplay(String(directory)) + linkNote(real);
  }
  for (const { words: written } of judged) {
    const name = commandName(written);
    const moves = name?.text === 'cd' || name?.text === 'pushd';
    // A bare `cd` goes HOME.
    const words = moves && written.length === 1 ? [...written, TILDE] : written;
    const follows = followsLinks(words);
    if (follows !== undefined) return SHELL_FOLLOW_REASON + renderContentForDisplay(follows.raw);
    const script = scriptOperand(words);
    for (const word of words) {
      if (word === script) continue;
      if (word.expands) return SHELL_VARIABLE_REASON + renderContentForDisplay(word.raw);
      for (const candidate of candidates(word.text)) {
        for (const path of paths(candidate, cwds, host.home)) {
          const real = path === undefined ? '' : outside(path);
          const note = real === undefined && path !== undefined ? globOutside(path) : linkNote(real ?? '');
          if (real !== undefined || note !== undefined)
            return SHELL_OUTSIDE_REASON + renderContentForDisplay(word.raw) + note;
          if (path !== undefined && moves && word !== name) cwds.push(path);
        }
      }
    }
  }
  return undefined;
}

const TILDE: ShellWord = {
  raw: 'cd with no directory (HOME)',
  text: '~',
  expands: false,
  plain: true,
  redirect: false,
};
const linkNote = (real: string) => (real === '' ? '' : ` (a link to ${renderContentForDisplay(real)})`);

/**
 * The paths a word may name: itself, an option's value after `=` or glued to a short option
 * (`-f/etc/passwd`), each part of a brace list.
 */
function candidates(text: string): string[] {
  const found = [text];
  const eq = text.indexOf('=');
  if (eq >= 0) found.push(text.slice(eq + 1));
  const glued = /^-[A-Za-z]+([/~.].*)$/.exec(text);
  if (glued !== null) found.push(glued[1]!);
  if (text.includes('{')) found.push(...text.split(/[{},]/));
  return found.filter((c) => c !== '' && !c.startsWith('-'));
}

/** Where bash reads `word`: undefined for a `~user` it cannot place. */
function paths(word: string, cwds: readonly string[], home: string | undefined): (string | undefined)[] {
  if (word.startsWith('~')) {
    if (home === undefined || home === '' || !/^~(?:\/|$)/.test(word)) return [undefined];
    return [resolve(home, `.${word.slice(1)}`)];
  }
  if (word.startsWith('/')) return [resolve(word)];
  return cwds.map((cwd) => resolve(cwd, word));
}
