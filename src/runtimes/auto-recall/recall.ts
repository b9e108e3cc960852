// The auto-recall search core, one function every host calls: the Qwen UserPromptSubmit hook
// (search.ts) and the OpenClaw plugin (../openclaw-recall/). Config, repository root, sanitized
// query, one search, rendered envelope — or nothing, on every failure (fail-open: it never throws).

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

/** What the host knows of the turn: the user's own text and the directory the session works in. */
export interface RecallInput {
  /** The text the user submitted for this turn, never rebuilt history or a host-made prompt. */
  message: string;
  /** The session's working directory (Qwen's `cwd`, OpenClaw's agent workspace). */
  cwd: string;
  /** Where the config path (QWEN_EXTERNAL_CONTEXT_CONFIG) and the provider credential are read. */
  env: Environment;
}

export interface Recalled {
  /** The sanitized query sent to the provider. */
  query: string;
  /** The rendered untrusted-context envelope (docs/contracts.md, "Context renderer"). */
  envelope: string;
}

/** One search for `input`, rendered; undefined for every reason not to inject anything. */
export async function recallContext(input: RecallInput): Promise<Recalled | undefined> {
  let loaded: LoadedConfig<RuntimeConfigV2>;
  try {
    // Version 1 files (MCP configs) are not ours: the loader refuses them before reading credentials.
    // The validator generated from the zod schema, not zod: loading zod would cost more than the
    // rest of a hook's start.
    loaded = loadRuntimeConfigWith(validateRuntimeConfig, input.env, 2);
  } catch {
    return undefined;
  }
  const { config, credential } = loaded;
  if (!isInsideRoot(input.cwd, config.autoRecall.repositoryRoot)) return undefined;
  const query = sanitizeQuery(input.message, credential);
  if (query === undefined) return undefined;

  let transport: TransportHandle | undefined;
  try {
    // The proxy dispatcher exists only after input, config, cwd and query have all passed.
    transport = await createTransport(input.env, { timeoutMs: config.autoRecall.timeoutMs });
    const provider = createProvider(config.provider, credential, { transport: transport.transport });
    // The provider timeout. The host's own budget needs no signal here: each host ends its wait
    // (and, for the command hook, the process) whatever is still in flight.
    const items = await provider.search({
      query,
      limit: MAX_ITEMS,
      signal: deadline(config.autoRecall.timeoutMs),
    });
    if (items.length === 0) return undefined;
    return { query, envelope: renderContext(items) };
  } catch {
    return undefined;
  } finally {
    // Always destroyed: a stalled proxy connection must never outlive the search.
    await transport?.close().catch(() => {});
  }
}
