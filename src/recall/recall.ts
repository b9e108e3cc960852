// The auto-recall search core, one function for every host: the Qwen UserPromptSubmit hook
// (src/runtimes/auto-recall/) and any other host that injects context before a prompt. Given the
// user's current message, it loads the provider config (version 2), checks the working directory
// against the repository root, sanitizes the message into a query, searches once and renders the
// envelope. Fail-open: every failure, and nothing found, is `undefined`; nothing is thrown.

import type { Environment } from '../base/environment.js';
import { MAX_ITEMS } from '../base/limits.js';
import { type LoadedConfig, loadRuntimeConfigWith } from '../config/load-core.js';
import type { RuntimeConfigV2 } from '../config/schema.js';
import { renderContext } from '../context/renderer.js';
import { sanitizeQuery } from '../context/sanitizer.js';
import { createTransport } from '../http/create-transport.js';
import type { Transport, TransportHandle } from '../http/transport.js';
import { createProvider } from '../providers/factory.js';
import { validateRuntimeConfig } from '../startup/validators/runtime-config.js';
import { isInsideRoot } from './inside-root.js';

export interface RecallInput {
  /** The user's current message as typed: never rebuilt history, never another turn's text. */
  message: string;
  /** The session's working directory; it must be the configured repository root or beneath it. */
  cwd: string;
  /** Proxy variables, and — without `loaded` — the provider config (QWEN_EXTERNAL_CONTEXT_CONFIG) and credential. */
  env: Environment;
  /** A version-2 config already loaded with its credential (its repositoryRoot a real path). */
  loaded?: LoadedConfig<RuntimeConfigV2>;
  /** Replaces the HTTP transport; the caller then owns its lifetime. */
  transport?: Transport;
}

export interface Recalled {
  /** The sanitized query sent to the provider. */
  query: string;
  /** The rendered `untrusted_external_context` envelope (src/context/renderer.ts). */
  envelope: string;
}

/**
 * One search for the current message. Resolves within the profile's `autoRecall.timeoutMs` once the
 * config is read, whatever the transport does: the same deadline aborts the request and ends the wait.
 */
export async function recallContext(input: RecallInput): Promise<Recalled | undefined> {
  let loaded: LoadedConfig<RuntimeConfigV2>;
  let query: string | undefined;
  try {
    // Version 1 files (MCP configs) are not ours: the loader refuses them before reading credentials.
    // The validator generated from the zod schema, not zod: loading zod would cost more than the rest
    // of a hook's start.
    loaded = input.loaded ?? loadRuntimeConfigWith(validateRuntimeConfig, input.env, 2);
    if (!isInsideRoot(input.cwd, loaded.config.autoRecall.repositoryRoot)) return undefined;
    query = sanitizeQuery(input.message, loaded.credential);
  } catch {
    return undefined;
  }
  if (query === undefined) return undefined;
  const signal = AbortSignal.timeout(loaded.config.autoRecall.timeoutMs);
  const expired = new Promise<undefined>((resolve) =>
    signal.addEventListener('abort', () => resolve(undefined)),
  );
  return Promise.race([expired, searchOnce(loaded, query, signal, input)]);
}

async function searchOnce(
  { config, credential }: LoadedConfig<RuntimeConfigV2>,
  query: string,
  signal: AbortSignal,
  input: RecallInput,
): Promise<Recalled | undefined> {
  let handle: TransportHandle | undefined;
  try {
    // The proxy dispatcher exists only after input, config, cwd and query have all passed.
    handle =
      input.transport === undefined
        ? await createTransport(input.env, { timeoutMs: config.autoRecall.timeoutMs })
        : undefined;
    const transport = handle?.transport ?? input.transport!;
    const provider = createProvider(config.provider, credential, { transport });
    const items = await provider.search({ query, limit: MAX_ITEMS, signal });
    return items.length === 0 ? undefined : { query, envelope: renderContext(items) };
  } catch {
    return undefined;
  } finally {
    // Always destroyed: a stalled proxy connection must never keep the process alive.
    await handle?.close().catch(() => {});
  }
}
