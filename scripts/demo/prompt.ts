// What Qwen 0.24.4 writes to a UserPromptSubmit hook's stdin: the pinned example prompt, with secrets
// the sanitizer must strip before anything leaves the machine, and a tool-result continuation.
import { randomUUID } from 'node:crypto';

export const QUESTION = 'How should deployment work?';

export const TYPED_PROMPT = [
  QUESTION,
  '```sh',
  'curl -H "Authorization: Bearer sk-live-4f9d2c7a1b8e6f3d" https://deploy.example.com/v1/releases',
  '```',
  'API_KEY=sk-live-1234567890',
  'Authorization: Bearer abc.def.ghi',
].join('\n');

export interface PromptSession {
  sessionId: string;
  cwd: string;
}

function baseEvent(session: PromptSession): Record<string, string> {
  return {
    session_id: session.sessionId,
    // "" is what Qwen sends when chat recording is off, as the managed baseline sets.
    transcript_path: '',
    cwd: session.cwd,
    hook_event_name: 'UserPromptSubmit',
    timestamp: new Date().toISOString(),
    permission_mode: 'default',
    // Qwen's id for the user turn; a tool-result continuation belongs to the same turn.
    prompt_id: `${session.sessionId}########1`,
  };
}

/** The user's own submission: `submitted_prompt` is what the hook reads, `prompt` is never read. */
export function submittedPromptEvent(session: PromptSession, typed: string): string {
  return JSON.stringify({ ...baseEvent(session), prompt: typed, submitted_prompt: typed });
}

/** Qwen fires the hook again after every tool result, with an empty prompt and no submitted_prompt. */
export function continuationEvent(session: PromptSession): string {
  return JSON.stringify({ ...baseEvent(session), prompt: '' });
}

export function newSession(cwd: string): PromptSession {
  return { sessionId: randomUUID(), cwd };
}
