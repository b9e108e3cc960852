// The approval guard: a PreToolUse hook that turns a mid-session switch to YOLO (or auto) back into
// confirmations, and asks in every mode before git runs in a directory the launcher did not check
// (docs/repository.md#git). Measured on Qwen 0.24.4: a PreToolUse `ask` forces a confirmation even
// in YOLO.
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

/** Qwen 0.24.4's shell tool, and its parameter naming the directory a command runs in. */
export const SHELL_TOOL = 'run_shell_command';
const GIT = /\bgit\b/;

export const GIT_ELSEWHERE_REASON =
  'git reads the configuration of the directory it runs in, and the launcher checked only the ' +
  "repository root's (and its submodules'): a configuration there may name a program git runs. " +
  'Directory: ';

/**
 * A shell command naming git with a `directory` other than the repository root (measured on Qwen
 * 0.24.4: a read-only `git diff` there runs without a confirmation, and a nested repository's
 * textconv, diff driver and hooks with it).
 */
function gitElsewhere(input: Record<string, unknown>): string | undefined {
  if (input.tool_name !== SHELL_TOOL || !isPlainObject(input.tool_input)) return undefined;
  const { command, directory } = input.tool_input;
  if (typeof command !== 'string' || !GIT.test(command)) return undefined;
  if (directory === undefined || directory === null || directory === '') return undefined;
  const trim = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, '') : p);
  if (typeof directory === 'string' && typeof input.cwd === 'string' && trim(directory) === trim(input.cwd))
    return undefined;
  return typeof directory === 'string' ? directory : JSON.stringify(directory);
}

/** `input` is the parsed stdin (undefined when malformed). Anything unexpected: `{}`, no opinion. */
export function decideApprovalGuard(input: unknown, guardedModes: ReadonlySet<string>): PreToolUseOutput {
  if (!isPlainObject(input) || input.hook_event_name !== 'PreToolUse') return {};
  const tool = input.tool_name;
  const mode = input.permission_mode;
  if (typeof tool !== 'string' || tool === '' || typeof mode !== 'string') return {};
  // In every mode: the default one runs read-only git commands without asking.
  const elsewhere = gitElsewhere(input);
  if (elsewhere !== undefined) {
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: GIT_ELSEWHERE_REASON + renderContentForDisplay(elsewhere),
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
