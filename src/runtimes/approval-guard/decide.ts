// The approval guard: a PreToolUse hook that turns a mid-session switch to YOLO (or auto) back into
// confirmations, and asks in every mode before git runs in a directory the launcher did not check
// (docs/repository.md#git), before a worktree checkout, before a skill (it may grant tools for the
// session), before a shell line Qwen judges only in part (`bash -c …`), before a file tool reads in Qwen's own directories and before a read-only shell
// command reads outside the repository; it denies a file tool through a link out of the repository;
// and, in auto-accept-edits, it asks before the tools that mode approves although they edit nothing
// (web_fetch, web_search, artifact, image_gen) and before edits of git's own files. Measured on Qwen 0.24.4: a PreToolUse `ask` forces a
// confirmation even in YOLO.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { renderContentForDisplay } from '../../context/display.js';
import { DEFAULT_GUARD_MODES, PERMISSION_REMEMBER } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';
import type { PreToolUseOutput } from '../write-confirmation/decide.js';
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

/** The guarded modes from the hook's configuration text (`yolo,auto`); unknown words are kept, blanks dropped. */
export function parseGuardedModes(text: string | undefined): ReadonlySet<string> {
  if (text === undefined) return new Set(DEFAULT_GUARD_MODES);
  return new Set(
    text
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== ''),
  );
}

export function guardReason(toolName: string, mode: string): string {
  // The tool name is shown escaped: another MCP server's tool name is not ours to trust on a terminal.
  return (
    `This deployment requires confirmation for every tool call, also in ${mode} mode. ` +
    `Tool: ${renderContentForDisplay(toolName)}`
  );
}

/**
 * Qwen 0.24.4's tools that run a shell command (`command`, and `directory` for where): both run the
 * commands its classifier reads as read-only without a dialog (measured: `monitor` ran a nested
 * repository's textconv for `git log -p` in its `directory`, and for `cd vendor/x && git show`).
 */
const SHELL_TOOLS: ReadonlySet<unknown> = new Set(['run_shell_command', 'monitor']);
// The program git: the word, ended where bash ends a word or starts an expansion (not `.git`,
// `git-lfs`, `git@host`); after it must come a plain subcommand: an option or a quoted or expanded
// word there may be -C, -c, --git-dir, --work-tree, --config-env, --exec-path, ….
const GIT = /(?<![\w.-])git(?:\.exe)?(?=[\s;&|()<>'"\\$`]|$)/gi;
const PLAIN_SUBCOMMAND = /^(?:[ \t]+[a-z]|[ \t]*(?:$|[;&|)\n]))/i;
// A shell builtin that changes the directory, with its argument; git's own environment variables.
const MOVES = /(?:^|[^\w-])(cd|pushd|popd)(?![\w-])([^;&|()`\n]*)/gi;
const GIT_VARIABLE = /\bGIT_[A-Z_]*/;

export const GIT_ELSEWHERE_REASON =
  'git reads the configuration of the directory it runs in, and the launcher checked only the ' +
  "repository root's (and its submodules'): a configuration there may name a program git runs. " +
  'Directory: ';

export const GIT_MOVED_REASON =
  'This command may run git in another directory or with another configuration than the ' +
  "repository root's (cd, pushd, popd, an option before git's subcommand, a GIT_ variable), and the " +
  "launcher checked only the root's: a configuration there may name a program git runs.";

// Qwen 0.24.4 classifies only the command after a leading shell's -c (its stripShellWrapper: sh,
// bash, zsh, cmd, powershell, pwsh, any path, any case, quoted) but runs the whole line: measured,
// `BASH_ENV=./evil.sh bash -c ls` and `bash /repo/evil.sh -c ls` ran the script with no dialog.
const SHELL_WORD =
  /(?<![\w.-])(?:ba|z)?sh(?:\.exe)?(?![\w./-])|(?<![\w.-])(?:cmd|powershell|pwsh)(?:\.exe)?(?![\w./-])/i;
const COMMAND_MARKER = /(?:^|\s)['"]?(?:-[a-z]*c[a-z]*|\/c|-command)['"]?(?=\s|$)/i;

export const SHELL_WRAPPER_REASON =
  "Qwen judges only the command after a shell's -c (bash -c …) and runs the whole line, which may " +
  'run other programs first (BASH_ENV, a script named before -c, commands after it).';

/**
 * Qwen 0.24.4's enter_worktree runs `git worktree add -b … <repo>/.qwen/worktrees/<name>` with no
 * dialog in any mode (its default permission is allow): measured through the launcher, the
 * repository's `post-checkout` and `reference-transaction` hooks ran, which the launcher lets pass.
 */
const WORKTREE_TOOL = 'enter_worktree';

export const WORKTREE_REASON =
  "enter_worktree runs git worktree add, which checks out files and runs the repository's " +
  'post-checkout and reference-transaction hooks (the launcher does not refuse those).';

/**
 * Qwen 0.24.4's tools that read files or list names, and the arguments that name where. Each runs
 * with no dialog inside the workspace and inside Qwen's own directories — `read_file` and
 * `zoom_image` anywhere under `$QWEN_HOME/tmp` (every project's prompt logs and saved tool output),
 * `grep_search`, `glob` and `list_directory` anywhere under `$QWEN_HOME` (measured: a read_file of
 * another project's `tmp/<hash>/logs.json` and a grep_search of the Qwen home ran with no dialog
 * and sent what they found to the model).
 */
const READ_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['file_path'],
  zoom_image: ['file_path'],
  grep_search: ['path'],
  glob: ['path'],
  list_directory: ['path'],
};
// glob's pattern is joined to its directory: an absolute pattern or a `..` step leaves it.
const PATTERN_LEAVES = /^(?:[\\/]|[a-z]:)|(?:^|[\\/])\.\.(?:[\\/]|$)/i;

const isReadTool = (name: unknown): name is string =>
  typeof name === 'string' && Object.hasOwn(READ_TOOLS, name);

export const OUTSIDE_REASON =
  "This tool reads outside the repository, in Qwen's own directories (every project's prompt logs " +
  'and saved output), which Qwen reads without asking. Path: ';

/** Whether `path` is `root` or below it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * Where a file tool reads, if Qwen would read it with no dialog outside the repository: in its own
 * directories (`qwenDirs`: QWEN_RUNTIME_DIR, QWEN_HOME; all outside when none is known), as written
 * or through a link (`realpath`: the nearest existing ancestor resolved, the rest appended), or by a
 * glob pattern that steps out. Elsewhere outside Qwen asks by itself, and a second ask would be a
 * second dialog (measured). Qwen's temporary directory for this repository
 * (`<runtime>/tmp/<sha256(root)>`, where it saves long tool output and tells the model to read it) is
 * not asked for.
 */
function readsOutside(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  const { realpath } = host;
  const fields = isReadTool(input.tool_name) ? READ_TOOLS[input.tool_name] : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  const args = input.tool_input;
  if (input.tool_name === 'glob' && typeof args.pattern === 'string' && PATTERN_LEAVES.test(args.pattern))
    return OUTSIDE_REASON + renderContentForDisplay(args.pattern);
  const realRoot = realpath(root);
  const qwenDirs = (host.qwenDirs ?? []).filter((dir) => dir !== '' && isAbsolute(dir));
  for (const field of fields) {
    const value = args[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') return OUTSIDE_REASON + renderContentForDisplay(JSON.stringify(value));
    const path = resolve(root, value);
    const real = realpath(path);
    if (within(root, path) && within(realRoot, real)) continue;
    const own = ownTempDir(root, host);
    if (own !== undefined && within(own, path) && within(realpath(own), real)) continue;
    if (qwenDirs.length > 0 && !qwenDirs.some((dir) => within(dir, path) || within(realpath(dir), real)))
      continue;
    return OUTSIDE_REASON + renderContentForDisplay(value);
  }
  return undefined;
}

/**
 * Qwen 0.24.4's write_file and edit run with no dialog in its auto-memory directories
 * (`<dir>/memories/`, `<dir>/projects/<root>/memory/`), whatever `memory.enableManagedAutoMemory`
 * says (measured through the launcher: a write_file there, no dialog); elsewhere they ask by themselves.
 */
const WRITE_TOOLS: ReadonlySet<unknown> = new Set(['write_file', 'edit']);
const AUTO_MEMORY = /^(?:memories|projects[\\/][^\\/]+[\\/]memory)(?:[\\/]|$)/;

export const MEMORY_WRITE_REASON =
  "This tool writes into Qwen's auto-memory directory, outside the repository, which Qwen allows " +
  'without asking. Path: ';

function writesMemory(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  if (!WRITE_TOOLS.has(input.tool_name) || !isPlainObject(input.tool_input)) return undefined;
  const value = input.tool_input.file_path;
  if (typeof value !== 'string') return undefined;
  const path = resolve(root, value);
  const real = host.realpath(path);
  const inMemory = (dir: string, at: string) => within(dir, at) && AUTO_MEMORY.test(relative(dir, at));
  const qwenDirs = (host.qwenDirs ?? []).filter((dir) => dir !== '' && isAbsolute(dir));
  return qwenDirs.some((dir) => inMemory(dir, path) || inMemory(host.realpath(dir), real))
    ? MEMORY_WRITE_REASON + renderContentForDisplay(value)
    : undefined;
}

// The tools that write a file Qwen names in its dialog by the path as given (it asks for each).
const WRITE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  write_file: ['file_path'],
  edit: ['file_path'],
  notebook_edit: ['notebook_path'],
};

export const LINK_OUT_REASON =
  "This path is a link in the repository to a place outside it, and Qwen's dialog would name only " +
  'the link. Name the place itself (Qwen then asks, showing it). Path: ';

/**
 * A file tool's path inside the repository that a link leads out of it (a link git does not track,
 * which the launcher does not judge: a non-git checkout, an untracked or built file). Measured on
 * Qwen 0.24.4: read_file of `notes.txt -> /proc/self/environ` asked "ReadFile notes.txt", and one
 * Enter sent the target to the model. Denied (not asked: Qwen asks too, and a second ask is a second
 * dialog), naming the target, so the model can name it and Qwen's own dialog show it.
 */
function linksOut(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  const tool = input.tool_name;
  const fields = isReadTool(tool)
    ? READ_TOOLS[tool]
    : typeof tool === 'string' && Object.hasOwn(WRITE_FIELDS, tool)
      ? WRITE_FIELDS[tool]
      : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  const realRoot = host.realpath(root);
  for (const field of fields) {
    const value = input.tool_input[field];
    if (typeof value !== 'string' || value === '') continue;
    const path = resolve(root, value);
    const real = host.realpath(path);
    if (within(root, path) && !within(realRoot, real))
      return `${LINK_OUT_REASON}${renderContentForDisplay(value)} (a link to ${renderContentForDisplay(real)})`;
  }
  return undefined;
}

/** What the guard may look at besides the event: links on disk, and Qwen's runtime directory. */
export interface GuardHost {
  /** The path with its nearest existing ancestor's links resolved (identity when none can be read). */
  realpath(path: string): string;
  /** QWEN_RUNTIME_DIR as the launcher pinned it (Qwen's own temporary directories live under it). */
  runtimeDir?: string;
  /** Qwen's own directories, where it reads with no dialog: QWEN_RUNTIME_DIR and QWEN_HOME. */
  qwenDirs?: readonly string[];
  /** sha256 in hex: Qwen names a repository's temporary directory by its root's hash. */
  sha256?(text: string): string;
  /** Whether something (a link too) is at `path`; every path may exist when unknown. */
  exists?(path: string): boolean;
  /** HOME, which bash puts for a leading `~`. */
  home?: string;
  /** The names in a directory (undefined when it is none or cannot be read): for expanding globs. */
  readdir?(dir: string): readonly string[] | undefined;
}

/** Qwen 0.24.4's temporary directory for the repository at `root`, when the host can name it. */
function ownTempDir(root: string, host: GuardHost): string | undefined {
  if (host.runtimeDir === undefined || host.runtimeDir === '' || host.sha256 === undefined) return undefined;
  return resolve(host.runtimeDir, 'tmp', host.sha256(root));
}

const LEXICAL: GuardHost = { realpath: (p) => p };

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
function shellReadsOutside(
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

const trimSlashes = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, '') : p);
const unquote = (p: string) => p.replace(/^(['"])(.*)\1$/, '$2');

/**
 * Why a tool call needs a confirmation whatever the mode: a worktree checkout (below), a shell command
 * Qwen judged only in part (a leading shell's -c), or one that names git and may run it where the launcher did not look: its `directory` is not
 * the repository root (measured on Qwen 0.24.4: a read-only `git diff` there runs without a
 * confirmation, and a nested repository's textconv, diff driver and hooks with it), or the command
 * itself moves it — measured: `cd vendor/x && git remote show origin` (and `git show`, `git log -p`,
 * `git blame`, `git describe --dirty`) ran without a confirmation, and the nested repository's ssh
 * command, textconv, clean filter and index hook with them. A `cd` to the root itself is no move.
 */
function everyModeRisk(input: Record<string, unknown>, host: GuardHost): string | undefined {
  if (input.tool_name === WORKTREE_TOOL) return WORKTREE_REASON;
  if (input.tool_name === SKILL_TOOL) return SKILL_REASON + skillName(input.tool_input);
  if (typeof input.cwd === 'string' && isAbsolute(input.cwd)) {
    const outside = readsOutside(input, input.cwd, host) ?? writesMemory(input, input.cwd, host);
    if (outside !== undefined) return outside;
  } else if (isReadTool(input.tool_name)) {
    // No repository root to compare with: the place read cannot be judged.
    return OUTSIDE_REASON + '(no working directory in the event)';
  }
  if (!SHELL_TOOLS.has(input.tool_name) || !isPlainObject(input.tool_input)) return undefined;
  const { command, directory } = input.tool_input;
  if (typeof command !== 'string') return undefined;
  // A backslash-newline joins the lines to bash: read the command as bash does.
  const joined = command.replace(/\\\r?\n/g, '');
  if (SHELL_WORD.test(joined) && COMMAND_MARKER.test(joined)) return SHELL_WRAPPER_REASON;
  const root = typeof input.cwd === 'string' ? trimSlashes(input.cwd) : undefined;
  const git = gitRisk(joined, directory, root);
  if (git !== undefined) return git;
  if (root === undefined || !isAbsolute(root)) return undefined;
  return shellReadsOutside(joined, directory, root, host);
}

/** The skill a skill call names, shown escaped (the model chose it). */
function skillName(args: unknown): string {
  const name = isPlainObject(args) ? args.skill : undefined;
  return renderContentForDisplay(typeof name === 'string' ? name : JSON.stringify(name ?? null));
}

function gitRisk(joined: string, directory: unknown, root: string | undefined): string | undefined {
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

/**
 * Qwen 0.24.4's auto-accept-edits mode approves, besides edits, every call whose dialog is an "info"
 * one (its isAutoEditApproved): web_fetch, web_search, artifact and image_gen ask with one. It is also
 * the mode every subagent of a trusted repository runs in when its definition names none, whatever
 * the session's. Measured through the launcher: one Shift+Tab, then a model's web_fetch of
 * `<server>/collect?d=…` reached that server with no dialog (in the default mode, one approved `agent`
 * call, then the subagent's web_fetch did the same), and an artifact of `/etc/hostname` was copied
 * into the Qwen home's `artifacts/` with no dialog. Each entry: what the tool does that is no edit.
 */
const AUTO_EDIT_MODES: ReadonlySet<unknown> = new Set(['auto_edit', 'auto-edit']);
const AUTO_EDIT_APPROVED: Readonly<Record<string, string>> = {
  web_fetch: 'it sends what the model wrote into the URL to the server it names',
  web_search: "it sends the model's query to a search service",
  artifact:
    'it reads any file the model names, also outside the repository, copies it into the Qwen home ' +
    '(artifacts/) and opens it in a browser, or uploads it when a remote publisher is set',
  image_gen: "it sends the model's prompt to an image service and saves what comes back",
};

export const AUTO_EDIT_EGRESS_REASON =
  'Qwen runs this tool with no dialog in auto-accept-edits mode (also the mode of a subagent), though ' +
  'it is no edit: ';

/**
 * Qwen 0.24.4's skill tool applies the skill's `allowedTools` as allow rules for the rest of the
 * session, and its dialog names only the skill ("Use skill: simplify"); in auto-accept-edits there is
 * none (an "info" dialog). Bundled skills grant run_shell_command (simplify, review,
 * extension-creator, workflow-authoring). Measured through the launcher: one "Yes, allow once" on
 * `simplify` in the default mode (or one Shift+Tab and no dialog at all), then the model's
 * `touch … && curl <server>` ran with no dialog and the server got the data. So the guard asks, in
 * every mode, naming the grant; in the default mode that is a second dialog after Qwen's, which does
 * not say what the skill grants.
 */
const SKILL_TOOL = 'skill';

export const SKILL_REASON =
  "A skill may grant tools for the rest of this session (its allowedTools; Qwen's bundled simplify, " +
  'review, extension-creator and workflow-authoring grant run_shell_command), after which Qwen runs ' +
  'them with no dialog, whatever they do. Skill: ';

/**
 * The edits auto-accept-edits approves (write_file, edit, notebook_edit) may write git's own files:
 * measured through the launcher, one Shift+Tab, then the model read `.git/config`, wrote a textconv
 * into it and a `.gitattributes` naming it, and its `git diff` (read-only to Qwen: no dialog) ran the
 * program — the launcher judged the git directory at start only. So the guard asks there before a
 * write into a `.git` (a directory or a `gitdir:` file, as written or through a link) and before one
 * of a `post-index-change` hook (git diff and status refresh the index; a hooks directory may be
 * anywhere in the repository, such as husky's).
 */
const EDIT_PATHS: Readonly<Record<string, readonly string[]>> = {
  write_file: ['file_path'],
  edit: ['file_path'],
  notebook_edit: ['notebook_path'],
};
const GIT_OWN_FILE = /(?:^|[\\/])(?:\.git(?:[\\/]|$)|post-index-change$)/i;

export const GIT_WRITE_REASON =
  "This edit writes git's own files (its configuration, hooks or index), which decide the programs " +
  'git runs for the read-only git commands Qwen runs with no dialog; the launcher judged them at start only. Path: ';

function writesGit(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  const tool = input.tool_name;
  const fields = typeof tool === 'string' && Object.hasOwn(EDIT_PATHS, tool) ? EDIT_PATHS[tool] : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  for (const field of fields) {
    const value = input.tool_input[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') return GIT_WRITE_REASON + renderContentForDisplay(JSON.stringify(value));
    const path = resolve(root, value);
    if (GIT_OWN_FILE.test(path) || GIT_OWN_FILE.test(host.realpath(path)))
      return GIT_WRITE_REASON + renderContentForDisplay(value);
  }
  return undefined;
}

/** What auto-accept-edits would run with no dialog and the guard asks for there (undefined: nothing). */
function autoEditRisk(input: Record<string, unknown>, host: GuardHost): string | undefined {
  if (!AUTO_EDIT_MODES.has(input.permission_mode)) return undefined;
  const tool = input.tool_name;
  if (typeof tool === 'string' && Object.hasOwn(AUTO_EDIT_APPROVED, tool))
    return `${AUTO_EDIT_EGRESS_REASON}${AUTO_EDIT_APPROVED[tool]}. Tool: ${renderContentForDisplay(tool)}`;
  return typeof input.cwd === 'string' && isAbsolute(input.cwd)
    ? writesGit(input, input.cwd, host)
    : undefined;
}

export const UNREAD_REASON =
  'This tool call is too large for the approval guard to read (its event is over 1 MiB, or was ' +
  'still arriving when the guard had to answer): check it yourself before it runs.';

/**
 * The answer, in every mode, for an event the guard could not read whole: over the hook's stdin
 * limit, or still arriving at its budget. The provider chooses a tool call's size (measured on Qwen
 * 0.24.4: a run_shell_command padded with a 1 MiB `description` ran in YOLO with no confirmation
 * while the guard answered `{}`), so it asks instead of having no opinion.
 */
export function unreadAnswer(): PreToolUseOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: UNREAD_REASON,
    },
  };
}

/** `input` is the parsed stdin (undefined when malformed). Anything unexpected: `{}`, no opinion. */
export function decideApprovalGuard(
  input: unknown,
  guardedModes: ReadonlySet<string>,
  host: GuardHost = LEXICAL,
): PreToolUseOutput {
  if (!isPlainObject(input) || input.hook_event_name !== 'PreToolUse') return {};
  const tool = input.tool_name;
  const mode = input.permission_mode;
  if (typeof tool !== 'string' || tool === '' || typeof mode !== 'string') return {};
  const link =
    typeof input.cwd === 'string' && isAbsolute(input.cwd) ? linksOut(input, input.cwd, host) : undefined;
  if (link !== undefined) {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: link,
      },
    };
  }
  // In every mode: the default one runs what Qwen classifies as read-only without asking.
  const elsewhere = everyModeRisk(input, host) ?? autoEditRisk(input, host);
  if (elsewhere !== undefined) {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: elsewhere,
      },
    };
  }
  if (!guardedModes.has(mode)) return {};
  // The write-confirmation hook already asks with the full text; a second ask would be a third prompt.
  if (tool === PERMISSION_REMEMBER) return {};
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: guardReason(tool, mode),
    },
  };
}
