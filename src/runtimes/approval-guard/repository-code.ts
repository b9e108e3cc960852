// Code the repository defines that a shell command runs: git hooks, package.json scripts, a Makefile,
// a local bin or script.
import { GUARD_REPOSITORY_CODE } from '../../base/limits.js';
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';
import { isAbsolute, join, resolve, within } from './host.js';
import { commandName, type ShellWord, shellCommands } from './shell-paths.js';

export const REPOSITORY_CODE_REASON =
  "This command runs code the repository defines, with this session's environment (Qwen's own " +
  'dialog names only the command). It runs: ';

/**
 * The hooks git 2.39 may run for each subcommand (githooks(5)); reference-transaction for every ref
 * it writes. `branch` and `tag` are left out: listing them runs nothing, and Qwen asks for the rest.
 */
const REF = 'reference-transaction';
const GIT_HOOKS: Readonly<Record<string, readonly string[]>> = {
  commit: ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-rewrite', REF],
  merge: ['pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'post-merge', REF],
  pull: [
    'pre-merge-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-merge',
    'pre-rebase',
    'post-rewrite',
    'post-checkout',
    REF,
  ],
  rebase: ['pre-rebase', 'post-checkout', 'prepare-commit-msg', 'post-rewrite', REF],
  am: ['applypatch-msg', 'pre-applypatch', 'post-applypatch', 'prepare-commit-msg', 'post-rewrite', REF],
  'cherry-pick': ['prepare-commit-msg', 'commit-msg', 'post-commit', REF],
  revert: ['prepare-commit-msg', 'commit-msg', 'post-commit', REF],
  checkout: ['post-checkout', REF],
  switch: ['post-checkout', REF],
  worktree: ['post-checkout', REF],
  reset: [REF],
  stash: [REF],
  push: ['pre-push', REF],
  fetch: [REF],
  'send-email': ['sendemail-validate'],
};

// npm's lifecycle scripts for each command (npm 10/11 docs, "scripts"); `run` names its own.
const INSTALL = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];
const NPM_LIFECYCLE: Readonly<Record<string, readonly string[]>> = {
  install: INSTALL,
  ci: INSTALL,
  'install-test': [...INSTALL, 'pretest', 'test', 'posttest'],
  rebuild: INSTALL,
  test: ['pretest', 'test', 'posttest'],
  start: ['prestart', 'start', 'poststart'],
  stop: ['prestop', 'stop', 'poststop'],
  restart: [
    'prerestart',
    'restart',
    'postrestart',
    'prestop',
    'stop',
    'poststop',
    'prestart',
    'start',
    'poststart',
  ],
  pack: ['prepack', 'prepare', 'postpack'],
  publish: ['prepublishOnly', 'prepack', 'prepare', 'postpack', 'publish', 'postpublish'],
  version: ['preversion', 'version', 'postversion'],
};
const NPM_ALIASES: Readonly<Record<string, string>> = {
  i: 'install',
  in: 'install',
  ins: 'install',
  inst: 'install',
  insta: 'install',
  instal: 'install',
  isnt: 'install',
  isntal: 'install',
  isntall: 'install',
  add: 'install',
  'clean-install': 'ci',
  ic: 'ci',
  'install-clean': 'ci',
  'install-test': 'install-test',
  it: 'install-test',
  'install-ci-test': 'install-test',
  cit: 'install-test',
  rb: 'rebuild',
  t: 'test',
  tst: 'test',
  run: 'run',
  'run-script': 'run',
  rum: 'run',
  urn: 'run',
  exec: 'exec',
  x: 'exec',
  dlx: 'exec',
};
const PACKAGE_MANAGERS = /^(?:npm|yarn|pnpm)$/;
const MAKES = /^(?:make|gmake)$/;
const ASSIGNMENT = /^[A-Za-z_]\w*=/;

/** What the guard reads of the repository to name the code: small text files, executable bits. */
export interface RepositoryFiles {
  /** The text of a regular file of at most GUARD_REPOSITORY_CODE.fileBytes (undefined otherwise). */
  readText(path: string): string | undefined;
  /** Whether `path` is an executable regular file (a hook git runs, a program). */
  executable(path: string): boolean;
  /** Whether `path` is a regular file. */
  isFile(path: string): boolean;
}

const options = (words: readonly ShellWord[]) => words.filter((w) => !w.redirect && !w.text.startsWith('-'));

/** The hooks directories git may use: `core.hooksPath` as written in `.git/config` (read loosely), and `.git/hooks`. */
function hookDirs(root: string, files: RepositoryFiles): string[] {
  let gitDir = join(root, '.git');
  const pointer = files.readText(gitDir);
  const gitdir = pointer === undefined ? undefined : /^gitdir: (.*?)\r?\n?$/.exec(pointer)?.[1];
  if (gitdir !== undefined) gitDir = resolve(root, gitdir);
  const dirs = [join(gitDir, 'hooks')];
  const config = files.readText(join(gitDir, 'config')) ?? '';
  // Every value that may be core.hooksPath: naming one hook too many costs a word, missing one a warning.
  for (const m of config.matchAll(/^[ \t]*hookspath[ \t]*=[ \t]*"?([^"\r\n;#]*?)"?[ \t]*(?:[;#].*)?$/gim))
    if (m[1] !== '' && !m[1]!.startsWith('~') && !m[1]!.startsWith('%')) dirs.push(resolve(root, m[1]!));
  return dirs;
}

function gitHooks(words: readonly ShellWord[], root: string, files: RepositoryFiles): string[] {
  const sub = options(words.slice(1))[0]?.text.toLowerCase();
  const hooks = sub === undefined ? undefined : GIT_HOOKS[sub];
  if (hooks === undefined) return [];
  return hookDirs(root, files).flatMap((dir) =>
    hooks.map((h) => join(dir, h)).filter((file) => files.executable(file)),
  );
}

function packageScripts(root: string, files: RepositoryFiles): Record<string, unknown> | undefined {
  const text = files.readText(join(root, 'package.json'));
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isPlainObject(parsed) && isPlainObject(parsed.scripts) ? parsed.scripts : undefined;
  } catch {
    return undefined;
  }
}

const showScript = (name: string, text: string) => {
  const points = [...text];
  const cut = points.length > GUARD_REPOSITORY_CODE.scriptCodePoints;
  const shown = points.slice(0, GUARD_REPOSITORY_CODE.scriptCodePoints).join('');
  return `package.json scripts.${name}: ${shown}${cut ? '…' : ''}`;
};

function localBin(bin: string | undefined, root: string, files: RepositoryFiles): string[] {
  if (bin === undefined || bin.includes('/')) return [];
  const file = join(root, 'node_modules', '.bin', bin);
  return files.executable(file) ? [file] : [];
}

function packageCode(words: readonly ShellWord[], base: string, files: RepositoryFiles): string[] {
  const manager = words[0]!.text;
  const args = options(words.slice(1));
  if (manager === 'npm' && args.length === 0) return [];
  const first = args[0]?.text;
  const command = first === undefined ? 'install' : (NPM_ALIASES[first] ?? first);
  if (command === 'exec') return localBin(args[1]?.text, base, files);
  const scripts = packageScripts(base, files);
  if (scripts === undefined) return [];
  let names: readonly string[];
  if (command === 'run')
    names = args[1] === undefined ? [] : [`pre${args[1].text}`, args[1].text, `post${args[1].text}`];
  else if (NPM_LIFECYCLE[command] !== undefined) names = NPM_LIFECYCLE[command]!;
  // yarn and pnpm run a script by its name alone (`yarn lint`).
  else if (manager !== 'npm' && first !== undefined) names = [`pre${first}`, first, `post${first}`];
  else names = [];
  return names.flatMap((name) =>
    typeof scripts[name] === 'string' ? [showScript(name, scripts[name] as string)] : [],
  );
}

function makefile(words: readonly ShellWord[], base: string, root: string, files: RepositoryFiles): string[] {
  const given = words.findIndex((w) => w.text === '-f' || w.text === '--file' || w.text === '--makefile');
  const candidates =
    given >= 0 && words[given + 1] !== undefined
      ? [words[given + 1]!.text]
      : ['GNUmakefile', 'makefile', 'Makefile'];
  for (const name of candidates) {
    const file = resolve(base, name);
    if (within(root, file) && files.isFile(file)) return [file];
  }
  return [];
}

/**
 * The repository code a shell command (`joined`, run in `base`, a directory of the repository at
 * `root`) would run, named for the user; empty when it names none. Measured on Qwen 0.24.4 through launch-qwen (default mode, no broker): the
 * model's `git commit -m wip` showed "Allow execution of: 'git'?" and `npm test` "Allow execution of:
 * 'npm'?", and after one Enter the repository's pre-commit hook and test script ran with the model key
 * and the Mem0 key in their environment; "Always allow" then runs the next one with no dialog.
 */
export function repositoryCode(
  joined: string,
  root: string,
  files: RepositoryFiles,
  base: string = root,
): string[] {
  const found: string[] = [];
  for (const { words: all } of shellCommands(joined)) {
    const head = commandName(all);
    if (head === undefined) continue;
    // `CI=1 npm test`: the assignments before the name are the command's environment.
    const words = all.slice(all.indexOf(head)).filter((w) => !w.redirect);
    while (words.length > 1 && words[0]!.plain && ASSIGNMENT.test(words[0]!.text)) words.shift();
    const name = words[0];
    if (name === undefined || !name.plain) continue;
    if (name.text === 'git') found.push(...gitHooks(words, root, files));
    else if (PACKAGE_MANAGERS.test(name.text)) found.push(...packageCode(words, base, files));
    else if (name.text === 'npx') found.push(...localBin(options(words.slice(1))[0]?.text, base, files));
    else if (MAKES.test(name.text)) found.push(...makefile(words, base, root, files));
    else if (name.text.includes('/')) {
      // A program of the repository run by its path (`./scripts/test.sh`, `bin/dev`).
      const file = isAbsolute(name.text) ? name.text : resolve(base, name.text);
      if (within(root, file) && files.executable(file)) found.push(file);
    }
  }
  return [...new Set(found)];
}

/** The reason naming what runs (paths relative to the root), or undefined when nothing does. */
export function repositoryCodeRisk(
  joined: string,
  directory: unknown,
  root: string,
  files: RepositoryFiles | undefined,
): string | undefined {
  if (files === undefined) return undefined;
  // The shell tool's `directory` (relative to the root, or absolute): where npm and make look.
  const base = typeof directory === 'string' && directory !== '' ? resolve(root, directory) : root;
  const found = repositoryCode(joined, root, files, base);
  if (found.length === 0) return undefined;
  const shown = found
    .slice(0, GUARD_REPOSITORY_CODE.names)
    .map((f) => (f.startsWith(`${root}/`) ? f.slice(root.length + 1) : f));
  const more = found.length > shown.length ? `; and ${found.length - shown.length} more` : '';
  return REPOSITORY_CODE_REASON + renderContentForDisplay(shown.join('; ') + more);
}
