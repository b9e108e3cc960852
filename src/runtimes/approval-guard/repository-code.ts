// Code the repository defines that a shell command runs: git hooks, package.json scripts, a Makefile,
// a local bin or script.

import POLICY from '../../../policies/repository-code.json' with { type: 'json' };
import { GUARD_REPOSITORY_CODE } from '../../base/limits.js';
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';
import { basename, dirname, isAbsolute, join, resolve, within } from './host.js';
import { REPOSITORY_CODE_REASON } from './repository-code-gate.js';
import { commandName, type ShellWord, shellCommands } from './shell-paths.js';

export { REPOSITORY_CODE_REASON } from './repository-code-gate.js';

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
  up: 'update',
  upgrade: 'update',
  udpate: 'update',
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
// The npm commands that install (or rebuild) dependencies, running their install scripts.
const DEPENDENCY_INSTALLS: ReadonlySet<string> = new Set([
  'install',
  'ci',
  'install-test',
  'rebuild',
  'update',
]);
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
  /** The names of the regular files in directory `path`, links followed (undefined when it is none). */
  list(path: string): readonly string[] | undefined;
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

/** `text` cut at GUARD_REPOSITORY_CODE.scriptCodePoints code points, `…` marking a cut. */
const cut = (text: string) => {
  const points = [...text];
  const shown = points.slice(0, GUARD_REPOSITORY_CODE.scriptCodePoints).join('');
  return points.length > GUARD_REPOSITORY_CODE.scriptCodePoints ? `${shown}…` : shown;
};
const showScript = (name: string, text: string) => `package.json scripts.${name}: ${cut(text)}`;

function localBin(bin: string | undefined, root: string, files: RepositoryFiles): string[] {
  if (bin === undefined || bin.includes('/')) return [];
  const file = join(root, 'node_modules', '.bin', bin);
  return files.executable(file) ? [file] : [];
}

function packageCode(words: readonly ShellWord[], base: string, files: RepositoryFiles): string[] {
  const manager = words[0]!.text;
  const args = options(words.slice(1));
  if (manager === 'npm' && args.length === 0) return [];
  // A bare `yarn` installs, but `yarn --version` / `pnpm -h` only print.
  if (args.length === 0 && words.some((w) => /^(?:--version|-v|--help|-h)$/.test(w.text))) return [];
  const first = args[0]?.text;
  const command = first === undefined ? 'install' : (NPM_ALIASES[first] ?? first);
  if (command === 'exec') return localBin(args[1]?.text, base, files);
  // npm runs the install scripts of the dependencies its lockfile pins, as it installs them.
  const dependencies =
    manager === 'npm' && DEPENDENCY_INSTALLS.has(command) && !words.some((w) => w.text === '--ignore-scripts')
      ? dependencyScripts(base, files)
      : [];
  const scripts = packageScripts(base, files) ?? {};
  let names: readonly string[];
  if (command === 'run')
    names = args[1] === undefined ? [] : [`pre${args[1].text}`, args[1].text, `post${args[1].text}`];
  else if (NPM_LIFECYCLE[command] !== undefined) names = NPM_LIFECYCLE[command]!;
  // yarn and pnpm run a script by its name alone (`yarn lint`), else a local program of that name (`yarn eslint`).
  else if (manager !== 'npm' && first !== undefined) {
    if (typeof scripts[first] !== 'string') return [...localBin(first, base, files), ...dependencies];
    names = [`pre${first}`, first, `post${first}`];
  } else names = [];
  return [
    ...names.flatMap((name) =>
      typeof scripts[name] === 'string' ? [showScript(name, scripts[name] as string)] : [],
    ),
    ...dependencies,
  ];
}

/**
 * The dependencies whose install scripts npm runs, as its lockfile marks them (`hasInstallScript`,
 * lockfile v2 and v3): counted and named in one entry, their names cut like a script's text.
 */
function dependencyScripts(base: string, files: RepositoryFiles): string[] {
  for (const lock of ['npm-shrinkwrap.json', 'package-lock.json']) {
    const path = join(base, lock);
    if (!files.isFile(path)) continue;
    const text = files.readText(path);
    // Past the read budget the guard cannot count them: it says so rather than pass.
    if (text === undefined)
      return [
        `${lock}: over ${GUARD_REPOSITORY_CODE.fileBytes} bytes, its dependencies' install scripts not counted`,
      ];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return [];
    }
    const packages = isPlainObject(parsed) && isPlainObject(parsed.packages) ? parsed.packages : {};
    const names = Object.entries(packages).flatMap(([key, entry]) =>
      key !== '' && isPlainObject(entry) && entry.hasInstallScript === true
        ? [key.includes('node_modules/') ? key.slice(key.lastIndexOf('node_modules/') + 13) : key]
        : [],
    );
    if (names.length === 0) return [];
    const counted = `${names.length} ${names.length === 1 ? 'dependency' : 'dependencies'}`;
    return [`${lock}: ${counted} with install scripts (${cut(names.join(', '))})`];
  }
  return [];
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

/** A tool's options that take a value (`--prefix sub`, `--prefix=sub`, `-Csub`), its value; else undefined. */
function optionValue(words: readonly ShellWord[], at: number, names: readonly string[] | undefined) {
  const word = words[at]!.text;
  for (const name of names ?? []) {
    if (word === name) return { value: words[at + 1], next: at + 2 };
    if (word.startsWith(`${name}=`) || (!name.startsWith('--') && word.startsWith(name) && word.length > 2))
      return {
        value: { ...words[at]!, text: word.slice(name.length + (word[name.length] === '=' ? 1 : 0)) },
        next: at + 1,
      };
  }
  return undefined;
}

/** Where a command runs and what it names, as bash and the tool read its words. */
interface Reading {
  /** The directories it may run in: the line's `cd`s and the tool's own option (`make -C sub`). */
  readonly bases: readonly string[];
  /** A directory word bash expands (`cd "$DIR"`): the rule cannot tell where the tool reads. */
  readonly unknown?: string;
  /** The runner that gives the command files as its words: `xargs` appends them, `find -exec` puts one at `{}`. */
  readonly feeds?: 'xargs' | 'find';
}

/**
 * The tool's directory and its operands: `directory` options move the bases (relative to each),
 * `file` options name the file it reads, the other options (and their glued values) are dropped.
 */
function readTool(words: readonly ShellWord[], entry: Tool | undefined, reading: Reading) {
  const operands: ShellWord[] = [];
  const given: ShellWord[] = [];
  let { bases, unknown } = reading;
  for (let at = 1; at < words.length; ) {
    const moved = optionValue(words, at, entry?.directory);
    const file = moved === undefined ? optionValue(words, at, entry?.file) : undefined;
    if (moved?.value !== undefined) {
      if (moved.value.expands) unknown = moved.value.raw;
      else bases = bases.map((b) => resolve(b, moved.value!.text));
      at = moved.next;
    } else if (file?.value !== undefined) {
      given.push(file.value);
      at = file.next;
    } else {
      if (!words[at]!.text.startsWith('-') && !words[at]!.text.startsWith('+')) operands.push(words[at]!);
      at++;
    }
  }
  return { bases, unknown, operands, given };
}

/**
 * The files of the policy's tool that exist where it runs (a `file` option's own instead). `read` is
 * the tool's words already read (readTool): its directory options have moved `bases` once.
 */
function toolFiles(
  read: { readonly operands: readonly ShellWord[]; readonly given: readonly ShellWord[] },
  entry: Tool,
  bases: readonly string[],
  root: string,
  files: RepositoryFiles,
): string[] {
  const sub = read.operands[0]?.text;
  if (entry.subcommands !== undefined && (sub === undefined || !entry.subcommands.includes(sub))) return [];
  const names = read.given.length > 0 ? read.given.map((w) => w.text) : entry.files;
  // A tool that finds its files in a parent directory too (bazel's workspace, MSBuild's Directory.Build.props).
  const looked = entry.upward === true ? bases.flatMap((b) => ancestors(b, root)) : bases;
  return looked.flatMap((base) => names.flatMap((n) => matching(resolve(base, n), root, files)));
}

/** `base` and its parents up to the root, nearest first. */
function ancestors(base: string, root: string): string[] {
  const found = [base];
  // Each step is strictly shorter (dirname), and stops at the root or the filesystem's top.
  for (let at = base; at !== root && dirname(at) !== at && within(root, dirname(at)); at = dirname(at))
    found.push(dirname(at));
  return found;
}

/** The files `path` names in the repository: itself, or for a `*` in its last part (`test_*.py`) those matching it there. */
function matching(path: string, root: string, files: RepositoryFiles): string[] {
  if (!within(root, path)) return [];
  const [head, tail, ...extra] = basename(path).split('*');
  if (tail === undefined || extra.length > 0) return files.isFile(path) ? [path] : [];
  const dir = dirname(path);
  return (files.list(dir) ?? [])
    .filter((n) => n.length >= head!.length + tail.length && n.startsWith(head!) && n.endsWith(tail))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * The repository files an interpreter runs: what its `loads` options load (`node -r ./hook.js`), and
 * its first operand (`bash ci.sh`, `python -W ignore x.py`: an option's value is no script) unless a
 * `code` option gave the program (`node -e …`).
 */
function interpreted(
  words: readonly ShellWord[],
  options: InterpreterOptions | undefined,
  feeds: Reading['feeds'],
  bases: readonly string[],
  root: string,
  files: RepositoryFiles,
): string[] {
  const found: string[] = [];
  const existing = (name: ShellWord, extensions: readonly string[]) =>
    name.expands
      ? []
      : bases.flatMap((b) => {
          const path = resolve(b, name.text);
          const file = ['', ...extensions]
            .map((e) => path + e)
            .find((f) => within(root, f) && files.isFile(f));
          return file === undefined ? [] : [file];
        });
  for (let at = 1; at < words.length; ) {
    const loaded = optionValue(words, at, options?.loads);
    if (loaded?.value !== undefined) {
      // A package name (`-r ts-node/register`) is a dependency's code; a path is the repository's.
      if (/^\.{0,2}\//.test(loaded.value.text))
        found.push(...existing(loaded.value, options?.extensions ?? []));
      at = loaded.next;
      continue;
    }
    if (optionValue(words, at, options?.code) !== undefined) return found;
    const valued = optionValue(words, at, options?.value);
    if (valued !== undefined) at = valued.next;
    // `--` and the other options (`-x`, `+o`) are no script.
    else if (/^[-+]/.test(words[at]!.text)) at++;
    else if (feeds === 'find' && words[at]!.text === '{}')
      return [...found, `${words[0]!.text} runs each file find lists`];
    else return [...found, ...existing(words[at]!, [])];
  }
  // No script operand: the first word xargs appends is the script.
  return feeds === 'xargs'
    ? [...found, `${words[0]!.text} runs the files xargs reads from its input`]
    : found;
}

interface Tool {
  readonly subcommands?: readonly string[];
  readonly files: readonly string[];
  readonly upward?: boolean;
  readonly directory?: readonly string[];
  readonly file?: readonly string[];
}
interface Wrapper {
  readonly value?: readonly string[];
  readonly directory?: readonly string[];
  readonly positionals?: number;
  readonly appends?: boolean;
}
const TOOLS: Readonly<Record<string, Tool>> = POLICY.tools;
const WRAPPERS: Readonly<Record<string, Wrapper>> = POLICY.wrappers;
const MODULES: Readonly<Record<string, string>> = POLICY.modules;
const INTERPRETERS: ReadonlySet<string> = new Set(POLICY.interpreters);
interface InterpreterOptions {
  readonly for: readonly string[];
  readonly value?: readonly string[];
  readonly loads?: readonly string[];
  readonly extensions?: readonly string[];
  readonly code?: readonly string[];
  readonly module?: readonly string[];
}
const INTERPRETER_OPTIONS: ReadonlyMap<string, InterpreterOptions> = new Map(
  (POLICY.interpreterOptions as readonly InterpreterOptions[]).flatMap((o) =>
    o.for.map((n) => [n, o] as const),
  ),
);
const FIND = POLICY.runs.find;

/** Whether the command ends in a directory option of a tool or wrapper it names (`make -C`, `env -C`): cut by a substitution. */
function endsInDirectoryOption(words: readonly ShellWord[]): boolean {
  const last = words.at(-1)!.text;
  return words.some(({ text }) => {
    const name = text.slice(text.lastIndexOf('/') + 1);
    return [...(own(TOOLS, name)?.directory ?? []), ...(own(WRAPPERS, name)?.directory ?? [])].includes(last);
  });
}
const WORKSPACES: ReadonlySet<string> = new Set(POLICY.workspaces);
const own = <T>(table: Readonly<Record<string, T>>, key: string) =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/**
 * The command a wrapper runs (`env X=1 npm test`, `timeout 60 make`, `env -C sub make`), with the
 * directory it moves to; `env -S 'npm test'` splits its value as the command's words.
 */
function unwrap(all: readonly ShellWord[], reading: Reading): { words: ShellWord[]; reading: Reading } {
  let words = [...all];
  for (;;) {
    // An assignment whose value expands (`X=$PWD npm test`) is still one: its name is written plainly.
    while (words.length > 1 && ASSIGNMENT.test(words[0]!.raw)) words.shift();
    const wrapper = words[0]?.expands === false ? own(WRAPPERS, words[0].text) : undefined;
    if (wrapper === undefined) return { words, reading };
    if (wrapper.appends === true) reading = { ...reading, feeds: 'xargs' };
    let skip = wrapper.positionals ?? 0;
    let inner: ShellWord[] | undefined;
    for (let at = 1; at < words.length && inner === undefined; at++) {
      const text = words[at]!.text;
      const moved = optionValue(words, at, wrapper.directory);
      if (moved?.value !== undefined) {
        const to = moved.value;
        reading = to.expands
          ? { ...reading, unknown: to.raw }
          : { ...reading, bases: reading.bases.map((b) => resolve(b, to.text)) };
        at = moved.next - 1;
      } else if (words[0]!.text === 'env' && /^(?:-S|--split-string)/.test(text)) {
        const split = text.replace(/^(?:-S|--split-string)=?/, '');
        const value = split === '' ? words[++at] : { ...words[at]!, text: split };
        const splitWords = value === undefined ? [] : (shellCommands(value.text)[0]?.words ?? []);
        inner = [...splitWords, ...words.slice(at + 1)];
      } else if (wrapper.value?.includes(text)) at++;
      else if (text.startsWith('-') || (words[0]!.text === 'env' && ASSIGNMENT.test(text))) continue;
      else if (skip > 0) skip--;
      else inner = words.slice(at);
    }
    // A wrapper with no command after its options (`env`, `env -i`, `nice`) runs nothing of ours to judge.
    if (inner === undefined || inner.length === 0) return { words: [], reading };
    words = inner;
  }
}

/** What one command (its words after the wrappers) runs of the repository, in each of its bases. */
function commandCode(words: ShellWord[], reading: Reading, root: string, files: RepositoryFiles): string[] {
  const name = words[0];
  if (name === undefined || name.expands) return [];
  // A repository program by its path (`./gradlew`) is read as the tool of its name too.
  const tool = name.text.includes('/') ? name.text.slice(name.text.lastIndexOf('/') + 1) : name.text;
  const entry = own(TOOLS, tool);
  const read = readTool(words, entry, reading);
  const { unknown } = read;
  // Code outside the repository is not the repository's (Qwen's dialog shows that line).
  const bases = read.bases.filter((b) => within(root, b));
  const known =
    entry !== undefined ||
    tool === 'git' ||
    tool === 'npx' ||
    INTERPRETERS.has(tool) ||
    (name.text.includes('/') && !isAbsolute(name.text));
  // A tool run where the guard cannot look: it asks rather than pass (`cd "$DIR" && make`).
  if (unknown !== undefined && known) return [`${tool} in a directory the guard cannot read: ${unknown}`];
  const found: string[] = [];
  if (tool === 'git') found.push(...gitHooks(words, root, files));
  else if (PACKAGE_MANAGERS.test(tool)) {
    const plain = [
      { ...name, text: tool },
      ...words.filter((_, i) => i > 0 && !isDirectoryWord(words, i, entry)),
    ];
    for (const base of bases) found.push(...packageCode(plain, base, files));
    if (words.some((w) => WORKSPACES.has(w.text.replace(/=.*/, ''))))
      found.push('package.json workspaces: the scripts of each workspace package');
  } else if (tool === 'npx') {
    for (const base of bases) found.push(...localBin(read.operands[0]?.text, base, files));
  } else if (MAKES.test(tool)) {
    for (const base of bases) found.push(...makefile(words, base, root, files));
  }
  if (entry !== undefined) found.push(...toolFiles(read, entry, bases, root, files));
  if (tool === 'find') found.push(...findRuns(words, reading, root, files));
  if (INTERPRETERS.has(tool)) {
    const interpreter = INTERPRETER_OPTIONS.get(tool);
    const module = words.findIndex((w) => interpreter?.module?.includes(w.text) === true);
    const target = module > 0 ? words[module + 1] : undefined;
    if (target !== undefined && !target.expands) {
      const via = own(MODULES, target.text);
      const modEntry = via === undefined ? undefined : own(TOOLS, via);
      if (modEntry !== undefined) {
        // `python -m pytest --rootdir sub`: the module's own options move its bases, once.
        const modRead = readTool([target, ...words.slice(module + 2)], modEntry, { bases });
        const modBases = modRead.bases.filter((b) => within(root, b));
        found.push(...toolFiles(modRead, modEntry, modBases, root, files));
      } else
        for (const base of bases)
          for (const f of [
            `${target.text.replaceAll('.', '/')}.py`,
            `${target.text.replaceAll('.', '/')}/__main__.py`,
          ])
            if (within(root, resolve(base, f)) && files.isFile(resolve(base, f)))
              found.push(resolve(base, f));
    } else found.push(...interpreted(words, interpreter, reading.feeds, bases, root, files));
  }
  if (name.text.includes('/')) {
    // A program of the repository run by its path (`./scripts/test.sh`, `bin/dev`).
    for (const base of bases) {
      const file = isAbsolute(name.text) ? name.text : resolve(base, name.text);
      if (within(root, file) && files.executable(file)) found.push(file);
    }
  }
  return found;
}

/**
 * What `find -exec`/`-ok` runs (`find . -exec ./x.sh {} ;`), read as a command of its own; `-execdir`
 * and `-okdir` run it in each found file's directory, where the guard cannot look.
 */
function findRuns(words: readonly ShellWord[], reading: Reading, root: string, files: RepositoryFiles) {
  const found: string[] = [];
  for (let at = 1; at < words.length; at++) {
    const there = FIND.there.includes(words[at]!.text);
    if (!there && !FIND.here.includes(words[at]!.text)) continue;
    const end = words.findIndex((w, i) => i > at && FIND.end.includes(w.text));
    const inner = words.slice(at + 1, end < 0 ? words.length : end);
    const moved: Reading = { ...reading, feeds: 'find', ...(there ? { unknown: words[at]!.raw } : {}) };
    // `inner` is strictly shorter than `words`: the recursion ends.
    const run = unwrap(inner, moved);
    if (run.words.length > 0) found.push(...commandCode(run.words, run.reading, root, files));
    at = end < 0 ? words.length : end;
  }
  return found;
}

/** Whether words[i] is a directory option of the tool or its value (npm's own parser never sees them here). */
function isDirectoryWord(words: readonly ShellWord[], i: number, entry: Tool | undefined): boolean {
  if (optionValue(words, i, entry?.directory) !== undefined) return true;
  return i > 1 && (entry?.directory ?? []).includes(words[i - 1]!.text);
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
  // Every directory a `cd` of the line may have moved to (a subshell's too): looking in one too many costs a name.
  let line: Reading = { bases: [base] };
  // A substitution ends the command in the words (`make -C $(pwd)/sub`): a directory option or `cd`
  // left with no value has lost the directory, and every later command may run there.
  const substitution = joined.includes('$(') ? '$(…)' : joined.includes('`') ? '`…`' : undefined;
  let lost = false;
  for (const command of shellCommands(joined)) {
    // After `$(…)` the cut command goes on (`env -C $(pwd)/sub make`): its first word is the directory's rest.
    const all = lost && command.continued ? command.words.slice(1) : command.words;
    if (command.continued) lost = false;
    const head = commandName(all);
    if (head === undefined) continue;
    const plain = all.filter((w) => !w.redirect);
    const last = plain.at(-1)!;
    if (
      substitution !== undefined &&
      ((last === head && (head.text === 'cd' || head.text === 'pushd')) || endsInDirectoryOption(plain))
    ) {
      line = { ...line, unknown: `${last.raw} ${substitution}` };
      lost = true;
    }
    const { words, reading } = unwrap(
      all.slice(all.indexOf(head)).filter((w) => !w.redirect),
      line,
    );
    const name = words[0];
    if (name === undefined) continue;
    if (name.text === 'cd' || name.text === 'pushd') {
      const to = words.slice(1).find((w) => !w.text.startsWith('-'));
      const bases =
        to === undefined
          ? line.bases
          : [...new Set([...line.bases, ...line.bases.map((b) => resolve(b, to.text))])];
      if (to?.expands) line = { ...line, unknown: to.raw };
      // Looked in one by one they grew 2ⁿ with n `cd`s: 18 took 2.4 s, 20 ran past the rule's limit.
      else if (bases.length > GUARD_REPOSITORY_CODE.directories)
        line = {
          ...line,
          unknown:
            line.unknown ?? `${to!.raw} (one of over ${GUARD_REPOSITORY_CODE.directories} directories)`,
        };
      else line = { ...line, bases };
      continue;
    }
    found.push(...commandCode(words, reading, root, files));
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
