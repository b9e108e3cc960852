// Steps 2–6 of the auto-recall hook, bundled as auto-recall-search.js and loaded by main.ts only
// after provenance passed, so the no-op path never reads or compiles the providers or the client.

import type { Environment } from '../../base/environment.js';
import { MAX_ITEMS } from '../../base/limits.js';
import { type LoadedConfig, loadRuntimeConfigWith } from '../../config/load-core.js';
import type { RuntimeConfigV2 } from '../../config/schema.js';
import { renderContext } from '../../context/renderer.js';
import { sanitizeQuery } from '../../context/sanitizer.js';
import { createTransport } from '../../http/create-transport.js';
import { deadline } from '../../http/deadline.js';
import type { TransportHandle } from '../../http/transport.js';
import { createProvider } from '../../providers/factory.js';
import { validateRuntimeConfig } from '../../startup/validators/runtime-config.js';
import { isInsideRoot } from './cwd.js';
import type { AutoRecallEvent } from './event.js';

export const EMPTY_OUTPUT = '{}';

export interface AutoRecallOptions {
  env: Environment;
}

/** Returns the hook's stdout. Every failure is `{}` (fail-open); nothing is thrown. */
export async function searchAndRender(event: AutoRecallEvent, options: AutoRecallOptions): Promise<string> {
  let loaded: LoadedConfig<RuntimeConfigV2>;
  try {
    // Version 1 files (MCP configs) are not ours: the loader refuses them before reading credentials.
    // The validator generated from the zod schema, not zod: loading zod would cost more than the rest
    // of this hook's start.
    loaded = loadRuntimeConfigWith(validateRuntimeConfig, options.env, 2);
  } catch {
    return EMPTY_OUTPUT;
  }
  const { config, credential } = loaded;
  if (!isInsideRoot(event.cwd, config.autoRecall.repositoryRoot)) return EMPTY_OUTPUT;
  const query = sanitizeQuery(event.submittedPrompt, credential);
  if (query === undefined) return EMPTY_OUTPUT;

  let transport: TransportHandle | undefined;
  try {
    // The proxy dispatcher exists only after input, config, cwd and query have all passed.
    transport = await createTransport(options.env, { timeoutMs: config.autoRecall.timeoutMs });
    const provider = createProvider(config.provider, credential, { transport: transport.transport });
    // The provider timeout. The hook's own budget needs no signal: when it runs out, hook-main
    // answers the fallback and exits, whatever is still in flight.
    const items = await provider.search({
      query,
      limit: MAX_ITEMS,
      signal: deadline(config.autoRecall.timeoutMs),
    });
    if (items.length === 0) return EMPTY_OUTPUT;
    return JSON.stringify({
      hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: renderContext(items) },
    });
  } catch {
    return EMPTY_OUTPUT;
  } finally {
    // Always destroyed: a stalled proxy connection must never keep the hook alive.
    await transport?.close().catch(() => {});
  }
}
