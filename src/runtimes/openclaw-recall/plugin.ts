// Entry of the OpenClaw plugin (dist/runtime/openclaw-recall.mjs, installed as
// runtime/openclaw-recall/index.mjs): the same bounded auto-recall as the Qwen hook, through
// OpenClaw's authorized `before_prompt_build` phase. It searches once per user turn with the shared
// core (src/recall/recall.ts), returns the envelope as `prependContext`, and fails open silently:
// every failure returns nothing, it never throws and never logs.
import type { Environment } from '../../base/environment.js';
import { OPENCLAW_HOOK_TIMEOUT_MS, OPENCLAW_RECALL_BUDGET_MS } from '../../base/limits.js';
import { OPENCLAW_PLUGIN_ID, PROVIDER_CONFIG_VARIABLE } from '../../contracts/names.js';
import { getentLookup } from '../../http/getent-lookup.js';
import { useLookup } from '../../http/single-flight-lookup.js';
import { type Recalled, recallContext } from '../../recall/recall.js';
import { isPlainObject } from '../../text/json.js';
import { SeenRuns, userTurn } from './turn.js';

/** What the plugin uses of OpenClaw's plugin API. */
export interface PluginApi {
  pluginConfig?: unknown;
  on(
    hook: 'before_prompt_build',
    handler: (event: unknown, ctx: unknown) => Promise<{ prependContext: string } | undefined>,
    options: { requiresToolAuthority: true; timeoutMs: number },
  ): void;
}

export interface HandlerDeps {
  /** The process environment the provider credential is read from. */
  env: Environment;
  /** The shared core; injectable for tests. */
  recall?: typeof recallContext;
  budgetMs?: number;
}

/** The provider config file named in the plugin's config (`plugins.entries.<id>.config.configFile`). */
export function configFileOf(pluginConfig: unknown): string | undefined {
  if (!isPlainObject(pluginConfig)) return undefined;
  const file = pluginConfig['configFile'];
  return typeof file === 'string' && file !== '' ? file : undefined;
}

/** Resolves with undefined after `ms`, without keeping the host alive for it. */
function budget(ms: number): Promise<undefined> {
  return new Promise((resolve) => {
    setTimeout(() => resolve(undefined), ms).unref();
  });
}

/** The `before_prompt_build` handler for one plugin registration. */
export function createHandler(configFile: string | undefined, deps: HandlerDeps) {
  const runs = new SeenRuns();
  const recall = deps.recall ?? recallContext;
  const budgetMs = deps.budgetMs ?? OPENCLAW_RECALL_BUDGET_MS;
  return async (event: unknown, ctx: unknown): Promise<{ prependContext: string } | undefined> => {
    try {
      if (configFile === undefined) return undefined;
      const turn = userTurn(event, ctx, runs);
      if (turn === undefined) return undefined;
      // The loader reads the config path from the environment, as in the Qwen hook: the same file
      // format, the same credential variable, read from OpenClaw's own environment.
      const env: Environment = { ...deps.env, [PROVIDER_CONFIG_VARIABLE]: configFile };
      // Our own budget, below OpenClaw's hook timeout: the host passes no abort signal.
      const recalled: Recalled | undefined = await Promise.race([
        recall({ message: turn.prompt, cwd: turn.cwd, env }),
        budget(budgetMs),
      ]);
      if (recalled === undefined) return undefined;
      // Throws once OpenClaw stopped awaiting this handler (timeout, abort, run replaced): then the
      // result would be stale, and nothing is returned.
      turn.authority.assertActive();
      return { prependContext: recalled.envelope };
    } catch {
      return undefined;
    }
  };
}

const plugin = {
  id: OPENCLAW_PLUGIN_ID,
  name: 'qwen-managed recall',
  description: 'Bounded, untrusted external context before each user turn (qwen-managed auto-recall)',
  register(api: PluginApi): void {
    // OpenClaw's process ends when its event loop drains: a provider lookup the resolver never answers
    // must not hold it (getent-lookup.ts).
    useLookup(getentLookup());
    const handler = createHandler(configFileOf(api.pluginConfig), { env: process.env });
    // Authorized phase: runs after OpenClaw settled the turn's tool policy, with ctx.toolAuthority.
    // The timeout is OpenClaw's wait for this handler when the config sets none (render sets it).
    api.on('before_prompt_build', handler, {
      requiresToolAuthority: true,
      timeoutMs: OPENCLAW_HOOK_TIMEOUT_MS,
    });
  },
};

export default plugin;
