// Git run where the launcher did not look: another directory, another configuration.
import { renderContentForDisplay } from '../../context/display.js';
import { trimSlashes } from './host.js';

// The program git: the word, ended where bash ends a word or starts an expansion (not `.git`,
// `git-lfs`, `git@host`); after it must come a plain subcommand: an option or a quoted or expanded
// word there may be -C, -c, --git-dir, --work-tree, --config-env, --exec-path, ….
const GIT = /(?<![\w.-])git(?:\.exe)?(?=[\s;&|()<>'"\\$`]|$)/gi;
const PLAIN_SUBCOMMAND = /^(?:[ \t]+[a-z]|[ \t]*(?:$|[;&|)\n]))/i;
// A shell builtin that changes the directory, with its argument; git's own environment variables.
const MOVES = /(?:^|[^\w-])(cd|pushd|popd)(?![\w-])([^;&|()`\n]*)/gi;
const GIT_VARIABLE = /\bGIT_[A-Z_]*/;
const unquote = (p: string) => p.replace(/^(['"])(.*)\1$/, '$2');

export const GIT_ELSEWHERE_REASON =
  'git reads the configuration of the directory it runs in, and the launcher checked only the ' +
  "repository root's (and its submodules'): a configuration there may name a program git runs. " +
  'Directory: ';

export const GIT_MOVED_REASON =
  'This command may run git in another directory or with another configuration than the ' +
  "repository root's (cd, pushd, popd, an option before git's subcommand, a GIT_ variable), and the " +
  "launcher checked only the root's: a configuration there may name a program git runs.";

/**
 * Why a shell command (`joined`) that names git may run it where the launcher did not look: its
 * `directory` is not the repository root (measured on Qwen 0.24.4: a read-only `git diff` there runs without a
 * confirmation, and a nested repository's textconv, diff driver and hooks with it), or the command
 * itself moves it — measured: `cd vendor/x && git remote show origin` (and `git show`, `git log -p`,
 * `git blame`, `git describe --dirty`) ran without a confirmation, and the nested repository's ssh
 * command, textconv, clean filter and index hook with them. A `cd` to the root itself is no move.
 */
export function gitRisk(joined: string, directory: unknown, root: string | undefined): string | undefined {
  const gits = [...joined.matchAll(GIT)];
  if (gits.length === 0) return undefined;
  if (directory !== undefined && directory !== null && directory !== '') {
    if (typeof directory !== 'string')
      return GIT_ELSEWHERE_REASON + renderContentForDisplay(JSON.stringify(directory));
    if (trimSlashes(directory) !== root) return GIT_ELSEWHERE_REASON + renderContentForDisplay(directory);
  }
  if (GIT_VARIABLE.test(joined)) return GIT_MOVED_REASON;
  if (gits.some((git) => !PLAIN_SUBCOMMAND.test(joined.slice(git.index + git[0].length))))
    return GIT_MOVED_REASON;
  for (const [, word, argument] of joined.matchAll(MOVES)) {
    const target = trimSlashes(unquote(argument!.trim()));
    if (word!.toLowerCase() !== 'cd' || target !== root) return GIT_MOVED_REASON;
  }
  return undefined;
}
