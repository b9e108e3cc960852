// Steps 2–6 of the auto-recall hook, bundled as auto-recall-search.js and loaded by auto-recall.ts only
// after provenance passed, so the no-op path never reads or compiles the providers or the client.
// The search itself is the host-neutral core (src/recall/recall.ts); this file only answers Qwen.

import type { Environment } from '../../base/environment.js';
import { recallContext } from '../../recall/recall.js';
import type { AutoRecallEvent } from './event.js';

export const EMPTY_OUTPUT = '{}';

export interface AutoRecallOptions {
  env: Environment;
}

/** Returns the hook's stdout. Every failure is `{}` (fail-open); nothing is thrown. */
export async function searchAndRender(event: AutoRecallEvent, options: AutoRecallOptions): Promise<string> {
  const recalled = await recallContext({ message: event.submittedPrompt, cwd: event.cwd, env: options.env });
  if (recalled === undefined) return EMPTY_OUTPUT;
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: recalled.envelope },
  });
}
