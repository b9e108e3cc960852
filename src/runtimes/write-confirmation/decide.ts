// The write-confirmation decision table (docs/contracts.md, "Hook I/O"), as a pure function of the hook's input.
import { CONFIRMATION_QUESTION, confirmationText } from '../../context/display.js';
import {
  confirmationOverflow,
  hiddenContentReason,
  hiddenInMemoryContent,
  isValidMemoryContent,
  tooLongToConfirmReason,
} from '../../context/memory-content.js';
import { PERMISSION_REMEMBER } from '../../contracts/names.js';
import { isPlainObject } from '../../text/json.js';

export const REASON_INVALID = 'the memory write confirmation request is invalid';
export const REASON_PLAN = 'memory writes are not allowed in plan mode';
export const REASON_MODE = 'memory writes are not allowed in this approval mode';
export const ASK_QUESTION = CONFIRMATION_QUESTION;

const ASK_MODES = new Set(['default', 'auto', 'auto_edit', 'auto-edit', 'yolo']);

export type PreToolUseOutput =
  | Record<string, never>
  | {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse';
        permissionDecision: 'ask' | 'deny';
        permissionDecisionReason: string;
      };
    };

const decision = (permissionDecision: 'ask' | 'deny', reason: string): PreToolUseOutput => ({
  hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision, permissionDecisionReason: reason },
});

/** `input` is the parsed stdin, or undefined when it was malformed or over 1 MiB. */
export function decideWriteConfirmation(input: unknown): PreToolUseOutput {
  // 1. Anything that is not a JSON object is refused: this hook guards a write.
  if (!isPlainObject(input)) return decision('deny', REASON_INVALID);
  // 2. Other events and tools pass through, so a broadened matcher can never deny unrelated tools.
  if (input.hook_event_name !== 'PreToolUse' || input.tool_name !== PERMISSION_REMEMBER) return {};
  // 3. A request we cannot show the user in full is never approved.
  const mode = input.permission_mode;
  const toolInput = input.tool_input;
  if (typeof mode !== 'string' || !isPlainObject(toolInput) || !isValidMemoryContent(toolInput.content)) {
    return decision('deny', REASON_INVALID);
  }
  // 3b. Content a terminal could draw otherwise than it is stored: Qwen's own question shows the raw
  // arguments, so it is refused in every mode, naming the code points, before anything is asked.
  const hidden = hiddenInMemoryContent(toolInput.content);
  if (hidden.length > 0) return decision('deny', hiddenContentReason(hidden));
  // 3c. Content whose question would not fit an 80 × 24 terminal: Qwen would show only its start.
  const overflow = confirmationOverflow(toolInput.content);
  if (overflow > 0) return decision('deny', tooLongToConfirmReason(overflow));
  // 4. Plan mode promises no side effects.
  if (mode === 'plan') return decision('deny', REASON_PLAN);
  // 5. An approval mode we do not know might auto-approve: refuse rather than guess.
  if (!ASK_MODES.has(mode)) return decision('deny', REASON_MODE);
  // 6. Ask — also in YOLO, where a PreToolUse `ask` still forces a confirmation (measured on 0.24.4).
  return decision('ask', confirmationText(toolInput.content));
}
