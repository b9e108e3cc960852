// Step 1 of the auto-recall hook: provenance. Decided before any config, credential, proxy or
// provider is touched, so continuation events and junk cost nothing.
import { isPlainObject } from '../../text/json.js';

export interface AutoRecallEvent {
  submittedPrompt: string;
  cwd: string;
}

/**
 * Accepts only a real `UserPromptSubmit` with a non-blank `submitted_prompt` and a string `cwd`.
 * The legacy `prompt` field is never read, not even as a fallback: it carries reminders, expanded
 * @file contents and slash-command output that must not leave the machine.
 */
export function readAutoRecallEvent(input: unknown): AutoRecallEvent | undefined {
  if (!isPlainObject(input)) return undefined;
  if (input.hook_event_name !== 'UserPromptSubmit') return undefined;
  const submitted = input.submitted_prompt;
  if (typeof submitted !== 'string' || submitted.trim() === '') return undefined;
  const cwd = input.cwd;
  if (typeof cwd !== 'string') return undefined;
  return { submittedPrompt: submitted, cwd };
}
