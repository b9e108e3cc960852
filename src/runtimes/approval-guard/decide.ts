// The approval guard: a PreToolUse hook that turns a mid-session switch to YOLO (or auto) back into
// confirmations, and asks in every mode before git runs in a directory the launcher did not check
// (docs/repository.md#git), before a worktree checkout, before a shell line Qwen judges only in
// part (`bash -c …`) and before a file tool reads outside the repository — and, in auto-accept-edits,
// before the network tools that mode approves although they edit nothing and before edits of git's
// own files. Measured on Qwen 0.24.4: a PreToolUse `ask` forces a confirmation even
// in YOLO.
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { renderContentForDisplay } from '../../context/display.js';
import { DEFAULT_GUARD_MODES, PERMISSION_REMEMBER } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';
import type { PreToolUseOutput } from '../write-confirmation/decide.js';

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
}

/** Qwen 0.24.4's temporary directory for the repository at `root`, when the host can name it. */
function ownTempDir(root: string, host: GuardHost): string | undefined {
  if (host.runtimeDir === undefined || host.runtimeDir === '' || host.sha256 === undefined) return undefined;
  return resolve(host.runtimeDir, 'tmp', host.sha256(root));
}

const LEXICAL: GuardHost = { realpath: (p) => p };

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
  const gits = [...joined.matchAll(GIT)];
  if (gits.length === 0) return undefined;
  const root = typeof input.cwd === 'string' ? trimSlashes(input.cwd) : undefined;
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
 * one (its isAutoEditApproved), and web_fetch and web_search ask with one. It is also the mode every
 * subagent of a trusted repository runs in when its definition names none, whatever the session's.
 * Measured through the launcher: one Shift+Tab, then a model's web_fetch of `<server>/collect?d=…`
 * reached that server with no dialog; in the default mode, one approved `agent` call, then the
 * subagent's web_fetch did the same. What the model writes into a URL or a query leaves the machine.
 */
const AUTO_EDIT_MODES: ReadonlySet<unknown> = new Set(['auto_edit', 'auto-edit']);
const EGRESS_TOOLS: ReadonlySet<unknown> = new Set(['web_fetch', 'web_search']);

export const AUTO_EDIT_EGRESS_REASON =
  'Qwen runs this tool with no dialog in auto-accept-edits mode (also the mode of a subagent), though ' +
  'it is no edit: it sends what the model wrote into it (a URL, a query) to a server the model chose. Tool: ';

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
  if (EGRESS_TOOLS.has(input.tool_name))
    return AUTO_EDIT_EGRESS_REASON + renderContentForDisplay(String(input.tool_name));
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
