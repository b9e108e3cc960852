// The approval guard: a PreToolUse hook that turns a mid-session switch to YOLO (or auto) back into
// confirmations. Measured on Qwen 0.24.4: a PreToolUse `ask` forces a confirmation even in YOLO.
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

/** `input` is the parsed stdin (undefined when malformed). Anything unexpected: `{}`, no opinion. */
export function decideApprovalGuard(input: unknown, guardedModes: ReadonlySet<string>): PreToolUseOutput {
  if (!isPlainObject(input) || input.hook_event_name !== 'PreToolUse') return {};
  const tool = input.tool_name;
  const mode = input.permission_mode;
  if (typeof tool !== 'string' || tool === '' || typeof mode !== 'string') return {};
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
