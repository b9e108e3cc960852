// The approval guard: a PreToolUse hook that turns a mid-session switch to YOLO (or auto) back into
// confirmations, and asks in every mode before git runs in a directory the launcher did not check
// (docs/repository.md#git), before a worktree checkout, before a skill (it may grant tools for the
// session), before a shell line Qwen judges only in part (`bash -c …`), before a file tool reads in
// Qwen's own directories, before a read-only shell command reads outside the repository and before a
// command runs the repository's own code (hooks, scripts), naming it; it
// denies a file tool through a link out of the repository; and, in auto-accept-edits, it asks before
// the tools that mode approves although they edit nothing (web_fetch, web_search, artifact,
// image_gen) and before edits of git's own files. Measured on Qwen 0.24.4: a PreToolUse `ask` forces
// a confirmation even in YOLO. Each rule lives in the file named after what it decides.
import { renderContentForDisplay } from '../../context/display.js';
import { DEFAULT_GUARD_MODES, PERMISSION_REMEMBER } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';
import type { PreToolUseOutput } from '../write-confirmation/decide.js';
import { autoEditRisk } from './auto-edit.js';
import { isReadTool } from './file-tools.js';
import { gitRisk } from './git-elsewhere.js';
import { type GuardHost, isAbsolute, LEXICAL, trimSlashes } from './host.js';
import { linksOut } from './link-out.js';
import { OUTSIDE_REASON, readsOutside, writesMemory } from './own-directories.js';
import { shellReadsOutside } from './shell-read-outside.js';
import { COMMAND_MARKER, SHELL_WORD, SHELL_WRAPPER_REASON } from './shell-wrapper.js';
import { SKILL_REASON, SKILL_TOOL, skillName } from './skill.js';
import { WORKTREE_REASON, WORKTREE_TOOL } from './worktree.js';

export { AUTO_EDIT_EGRESS_REASON, GIT_WRITE_REASON, OUTSIDE_WRITE_REASON } from './auto-edit.js';
export { GIT_ELSEWHERE_REASON, GIT_MOVED_REASON } from './git-elsewhere.js';
export type { GuardHost } from './host.js';
export { LINK_OUT_REASON } from './link-out.js';
export { MEMORY_WRITE_REASON, OUTSIDE_REASON } from './own-directories.js';
export { REPOSITORY_CODE_REASON } from './repository-code-gate.js';
export {
  SHELL_FOLLOW_REASON,
  SHELL_OUTSIDE_REASON,
  SHELL_VARIABLE_REASON,
} from './shell-read-outside.js';
export { SHELL_WRAPPER_REASON } from './shell-wrapper.js';
export { SKILL_REASON } from './skill.js';
export { WORKTREE_REASON } from './worktree.js';

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

/** Why a tool call needs a confirmation whatever the mode (undefined: nothing here). */
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
  return host.repositoryCode?.(joined, directory, root) ?? shellReadsOutside(joined, directory, root, host);
}

export const FAILED_REASON =
  'The approval guard could not judge this tool call (it failed or ran out of time): check it ' +
  'yourself before it runs.';

/**
 * The answer for a guard that failed on an event (a crash, its budget run out): an ask, never `{}`.
 * `{}` is no opinion, and in YOLO no opinion runs the call unasked.
 */
export function failedAnswer(): PreToolUseOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'ask',
      permissionDecisionReason: FAILED_REASON,
    },
  };
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
