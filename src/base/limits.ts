// Every cap, budget and timeout of the managed contract, written once. The renderer, the providers,
// the published schemas, both config schemas, render, verify and the runtimes read them from here;
// docs/contracts.md says what each one bounds and why it has its value.

/** Items per search: what a runtime asks for, what a provider keeps, what the renderer emits (the output schema's `maxItems`). */
export const MAX_ITEMS = 5;
/** Per-field caps of a rendered item, in code points (also the published output schema's `maxLength`s). */
export const FIELD_CAPS = { id: 128, content: 1000, title: 200, uri: 500, updatedAt: 64 } as const;
/** UTF-16 code units of the rendered context envelope, escapes included. */
export const CONTEXT_BUDGET_UNITS = 4000;
/** Longest accepted `context_search` query, in code points. */
export const MAX_QUERY_CODE_POINTS = 2000;
/** Code points of a prompt the auto-recall sanitizer reads, and of the query it sends (upstream's bounds). */
export const SANITIZER_INPUT_CODE_POINTS = 4096;
export const RECALL_QUERY_CODE_POINTS = 512;
/** Longest memory a write may store, in code points. */
export const MAX_MEMORY_CODE_POINTS = 4000;
/**
 * The write confirmation must fit the smallest terminal we promise it in full on, 80 × 24: there
 * Qwen 0.24.4 gives a hook's question 13 rows of at least 69 columns and hides the rest behind
 * "... last N lines hidden ..." with "Yes" preselected (measured). A memory whose question needs more
 * rows at these columns (a column and a row to spare) is refused rather than shown in part.
 */
export const CONFIRMATION_TEXT = { terminal: '80x24', columns: 64, rows: 12 } as const;

/** Largest runtime provider config file the loader reads (the `file-too-large` message names it in KiB). */
export const MAX_CONFIG_BYTES = 65_536;
/** Largest hook event a hook reads from stdin. */
export const HOOK_STDIN_BYTES = 1024 * 1024;

/**
 * The approval guard naming the repository code a shell command runs: the largest package.json or
 * git config it reads, the code points of a script's text it shows, how many it names, and the
 * longest it may run (wall clock; it reads a few small files) before the guard asks instead: well
 * inside HOOK_BUDGET_MS, so the answer still comes before Qwen's timeout would run the call unasked.
 */
export const GUARD_REPOSITORY_CODE = {
  fileBytes: 1024 * 1024,
  scriptCodePoints: 160,
  names: 6,
  // Each `cd` may double the directories a line may be in (`cd a; cd b; …`): past this, it asks.
  directories: 32,
  ruleMs: 3000,
} as const;

/** The auto-recall hook's timeout, rendered in the unit the Qwen version reads (policies/qwen/versions.json). */
export const HOOK_TIMEOUT_MS = 8000;
/**
 * The approval guard's and the write confirmation's timeout in Qwen. Both answer within HOOK_BUDGET_MS
 * of their own start, but Qwen's timer runs from the spawn and, when it fires before Qwen's busy event
 * loop has read the answer, Qwen runs the tool call as if no hook had spoken (fail open). Measured on
 * 0.24.4 with a shell call padded to 1 MiB: the guard answered 1.6 s after its start, the dialog came
 * 7.5 s after that, and at load 7.5 the call ran in YOLO with no dialog. The margin is Qwen's, not the
 * hooks': they never take longer for it.
 */
export const SECURITY_HOOK_TIMEOUT_MS = 60_000;
/** The auto-recall hook's own wall-clock budget, between the provider timeout and HOOK_TIMEOUT_MS. */
export const HOOK_BUDGET_MS = 6500;
/**
 * The OpenClaw recall plugin's own wall-clock budget per prompt build, between the provider timeout
 * and OPENCLAW_HOOK_TIMEOUT_MS: when it runs out the plugin answers nothing.
 */
export const OPENCLAW_RECALL_BUDGET_MS = 6500;
/** OpenClaw's per-handler timeout of the plugin's `before_prompt_build`, rendered as `hooks.timeouts`. */
export const OPENCLAW_HOOK_TIMEOUT_MS = 8000;
/** The MCP server entry's call timeout in mcp.json. */
export const MCP_TIMEOUT_MS = 8000;
/** Provider timeouts of the runtime config: top-level `timeoutMs` and `autoRecall.timeoutMs` (default, largest accepted). */
export const PROVIDER_TIMEOUT_MS = { default: 5000, max: 30_000 } as const;
export const AUTO_RECALL_TIMEOUT_MS = { default: 1500, max: 5000 } as const;

/**
 * The credential broker's deadline for one provider exchange, nested below the profile's own provider
 * timeout (`timeoutMs`, which the runtime keeps): the runtime then sees the broker's 504 instead of
 * timing out itself, and its fail-open budget is unchanged. A fifth of the timeout, at most 250 ms,
 * is left for the hop to the broker.
 */
export function brokerUpstreamTimeoutMs(providerTimeoutMs: number): number {
  return providerTimeoutMs - Math.min(250, Math.ceil(providerTimeoutMs / 5));
}
/** The smallest provider `timeoutMs` a brokered profile accepts (its broker deadline is then 1 ms). */
export const BROKER_MIN_PROVIDER_TIMEOUT_MS = 2;
/**
 * The model listener's idle bounds (no total deadline: an answer streams as long as the model writes):
 * the wait for the answer's head, and for each next piece of its body.
 */
export const BROKER_MODEL_IDLE_MS = 600_000;
/** Largest request body a broker listener reads: a provider search or write, a model request. */
export const BROKER_BODY_BYTES = { provider: 256 * 1024, model: 64 * 1024 * 1024 } as const;
/**
 * Deepest nesting of a request body's JSON the broker reads: far beyond any model or provider
 * request, and far below what would overflow the stack of the walk that removes the secrets.
 */
export const BROKER_JSON_DEPTH = 1000;
/**
 * What a caller of the broker may hold, whoever it is (the uid is known only at the connection, and
 * anyone on the host may connect): a connection that sends nothing, a request head or body that
 * trickles in, or a pile of connections would otherwise stay for good — measured on Node 20 with
 * `requestTimeout: 0` (which also makes `headersTimeout` 0): a refused user's idle and trickling
 * connections stayed past 100 s, and of 19 000 idle ones opened in a minute the broker held 3 976
 * (its descriptors) two minutes on. Qwen and the runtimes send a request at once
 * over loopback; the answer is not bounded here (BROKER_MODEL_IDLE_MS and the listeners' deadlines).
 */
export const BROKER_CALLER_LIMITS = {
  /** A new connection's wait for its first request head to be complete (bytes or not). */
  firstRequestMs: 10_000,
  /** From a request's first byte to the end of its head. */
  headersMs: 10_000,
  /** From a request's first byte to the end of its body (64 MiB over loopback takes well under this). */
  requestMs: 60_000,
  /** How often Node looks for heads and bodies past those bounds. */
  checkEveryMs: 1_000,
  /** Open connections per caller uid (root's are not counted); the next is refused (audited). */
  connectionsPerUid: 256,
} as const;
export type BrokerCallerLimits = { readonly [K in keyof typeof BROKER_CALLER_LIMITS]: number };

/**
 * Longest a new connection waits for others to be looked up with it: one read of the kernel's socket
 * tables answers every connection accepted meanwhile (the wait is the last read's duration, so it
 * grows only while a flood makes reads slow; after a read under 1 ms, or for a connection that does
 * not arrive back to back with the last lookup, there is no wait).
 */
export const BROKER_LOOKUP_GATHER_MAX_MS = 1_000;
/** How long the launcher (and verify) wait for each broker listener's health answer. */
export const BROKER_HEALTH_TIMEOUT_MS = 3000;
/**
 * The launcher's read of OpenClaw's session database before a start (the pinned Node 24 on
 * node:sqlite): its wait, and the most it reads of the answer (only entries holding a refused key).
 */
export const OPENCLAW_SESSION_READ = { timeoutMs: 10_000, maxBytes: 1024 * 1024 } as const;
