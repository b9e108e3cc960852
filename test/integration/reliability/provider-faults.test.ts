// The provider fault matrix through the BUILT runtimes: every fault of fault-table.ts against the
// auto-recall hook (a real child process per prompt) and the MCP server (a real stdio server per
// fault, driven by the official SDK client: one context_search, then one context_remember).
// Every run carries the credential and prompt canaries; nothing a runtime prints may contain them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { promptSubmitEvent } from '../../../scripts/shared/hook-events.js';
import { HOOK_BUDGET_MS, MCP_TIMEOUT_MS } from '../../../src/base/limits.js';
import {
  ALL_CANARIES,
  type CanaryName,
  CONTENT_CANARY,
  CREDENTIALS,
  canariesIn,
  PROMPT_CANARY,
} from '../../fixtures/canaries.js';
import { type FaultServer, refusedUrl, startFaultServer } from '../../fixtures/fault-server.js';
import { connectMcp } from '../../fixtures/mcp-client.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { budget, ReliabilitySection } from '../../fixtures/reliability-report.js';
import { runRuntime, runtimePath } from '../../fixtures/run-runtime.js';
import {
  FAULT_TIMEOUT_MS,
  genericAutoRecallConfig,
  mem0PlatformProvider,
  PROXIED_FAULT_TIMEOUT_MS,
} from '../../fixtures/runtime-config.js';
import { FAULT_CASES, FAULT_LABELS, type FaultCase } from './fault-table.js';

// Every config's provider timeout is FAULT_TIMEOUT_MS (PROXIED_FAULT_TIMEOUT_MS through a proxy), so
// the fault decides each row. The time bounds are asserted apart from the outcome: the hook answers
// before its own budget (HOOK_BUDGET_MS, on the hook's own clock, which starts with its process)
// runs out, so the provider timeout or the fault ended the request, never the budget's fallback; a
// tool call answers before Qwen's MCP call timeout (MCP_TIMEOUT_MS).

const GENERIC_PATH = '/v1/context/search';
const SEARCH_PATH = '/v3/memories/search/';
const WRITE_PATH = '/v3/memories/add/';
const APP_ID = 'repository-memory';
const PROXIED = { hook: 'context.example.com', mcp: 'memory.example.com' };

const PROMPT = `How should deployment work? ${PROMPT_CANARY}`;
const QUERY = `deployment policy ${PROMPT_CANARY}`;
const CONTENT = `Release branches are cut on Tuesdays. ${CONTENT_CANARY}`;
const SEARCH_FAILED = 'External context search failed.';
const REMEMBER_TEXT = {
  failed: JSON.stringify({
    status: 'failed',
    message: 'The provider rejected the memory. Do not retry without changing the content or configuration.',
  }),
  unknown: JSON.stringify({
    status: 'unknown',
    message: 'The provider may have accepted the memory. Do not retry automatically.',
  }),
};
/** Everything the runtimes print is scanned for every canary: none may appear. */
const EVERY_CANARY = Object.keys(ALL_CANARIES) as CanaryName[];

const hookSection = new ReliabilitySection(
  'faults-hook',
  `Each fault is played by a loopback server (or proxy) on every path. The hook runs as a real child process with ` +
    `\`autoRecall.timeoutMs: ${FAULT_TIMEOUT_MS}\` (${PROXIED_FAULT_TIMEOUT_MS} through a proxy: long enough for the ` +
    `request to reach the fault on a loaded machine), a Generic HTTP provider, a prompt carrying the credential and a prompt marker, and the credential in ` +
    `its environment. "1 request" means exactly one request with the specified wire form (sanitized query, one ` +
    `credential header); the time bound is the hook's own ${HOOK_BUDGET_MS / 1000} s budget, on its own clock ` +
    `(from its process start, as the budget runs), which it must not need: answering within it means the ` +
    `provider timeout or the fault ended the request.`,
  FAULT_LABELS,
);
const searchSection = new ReliabilitySection(
  'faults-mcp-search',
  `One MCP server per fault (\`timeoutMs: ${FAULT_TIMEOUT_MS}\`, ${PROXIED_FAULT_TIMEOUT_MS} through a proxy, Mem0 \`mem0-platform-v3\` preset, write enabled), ` +
    `driven by the official SDK client over stdio. The search is the first call of the session; each call must ` +
    `answer within Qwen's MCP call timeout (${MCP_TIMEOUT_MS / 1000} s).`,
  FAULT_LABELS,
);
const rememberSection = new ReliabilitySection(
  'faults-mcp-remember',
  `The same server, second call: \`context_remember\` through the preset's write path. Outcome table ` +
    `(docs/contracts.md, "Outcome mapping"): a thrown 400/401/403/404 is \`failed\`; every other failure is \`unknown\`. Each answer is ` +
    `\`isError\` with its fixed text; the server must still answer \`tools/list\` afterwards.`,
  FAULT_LABELS,
);

let dir: string;
let root: string;
const servers = new Map<string, FaultServer>();
const proxies = new Map<string, LoopbackProxy>();
let refused: string;

beforeAll(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-faults-')));
  root = path.join(dir, 'repo');
  fs.mkdirSync(root);
  refused = await refusedUrl();
  for (const c of FAULT_CASES) {
    if (c.source.kind === 'server') servers.set(c.label, await startFaultServer({ fault: c.source.fault }));
    if (c.source.kind === 'proxy') proxies.set(c.label, await startProxy({ fault: c.source.fault }));
  }
});

afterAll(async () => {
  await Promise.all([...servers.values(), ...proxies.values()].map((s) => s.close()));
  fs.rmSync(dir, { recursive: true, force: true });
  for (const section of [hookSection, searchSection, rememberSection]) section.write();
});

type Surface = 'hook' | 'search' | 'write';

/** Where a case's provider lives and how the requests it received are counted. */
interface Endpoint {
  baseUrl: string;
  mem0Origin: string;
  env: Record<string, string>;
  /** The configs' provider timeout: long enough for a request to reach this endpoint's fault. */
  timeoutMs: number;
  /** Requests of `surface` received in the expected wire form / in total; undefined when nothing listens. */
  seen(surface: Surface): { specified: number; total: number } | undefined;
  /** How a request is named in the table. */
  unit: string;
}

const WIRE: Record<Surface, { path: string; header: [string, string]; body: unknown }> = {
  hook: {
    path: GENERIC_PATH,
    header: ['authorization', `Bearer ${CREDENTIALS.CONTEXT_API_TOKEN}`],
    body: { query: PROMPT, limit: 5 },
  },
  search: {
    path: SEARCH_PATH,
    header: ['authorization', `Token ${CREDENTIALS.MEM0_API_KEY}`],
    body: { query: QUERY, top_k: 5, threshold: 0.1, rerank: false, filters: { app_id: APP_ID } },
  },
  write: {
    path: WRITE_PATH,
    header: ['authorization', `Token ${CREDENTIALS.MEM0_API_KEY}`],
    body: { messages: [{ role: 'user', content: CONTENT }], infer: false, app_id: APP_ID },
  },
};

function endpoint(c: FaultCase): Endpoint {
  switch (c.source.kind) {
    case 'refused':
      return {
        baseUrl: refused,
        mem0Origin: refused,
        env: {},
        timeoutMs: FAULT_TIMEOUT_MS,
        seen: () => undefined,
        unit: 'request',
      };
    case 'server': {
      const server = servers.get(c.label)!;
      return {
        baseUrl: server.url,
        mem0Origin: server.url,
        env: {},
        timeoutMs: FAULT_TIMEOUT_MS,
        unit: 'request',
        seen(surface) {
          const wire = WIRE[surface];
          const requests = server.requests.filter((r) => r.path === wire.path);
          const specified = requests.filter(
            (r) =>
              r.method === 'POST' &&
              r.headers[wire.header[0]] === wire.header[1] &&
              r.body === JSON.stringify(wire.body),
          );
          return { specified: specified.length, total: requests.length };
        },
      };
    }
    case 'proxy': {
      const proxy = proxies.get(c.label)!;
      return {
        baseUrl: `https://${PROXIED.hook}`,
        mem0Origin: `https://${PROXIED.mcp}`,
        env: { HTTPS_PROXY: proxy.url },
        timeoutMs: PROXIED_FAULT_TIMEOUT_MS,
        unit: 'CONNECT',
        seen(surface) {
          const host = surface === 'hook' ? PROXIED.hook : PROXIED.mcp;
          const n = proxy.requests.filter((r) => r.kind === 'connect' && r.target === `${host}:443`).length;
          return { specified: n, total: n };
        },
      };
    }
  }
}

/** Counts what one call added, in the table's words. */
function requestsText(
  before: ReturnType<Endpoint['seen']>,
  after: ReturnType<Endpoint['seen']>,
  unit: string,
): string {
  if (before === undefined || after === undefined) return 'no listener';
  const total = after.total - before.total;
  const specified = after.specified - before.specified;
  const text = `${total} ${unit}${total === 1 ? '' : 's'}`;
  return specified === total ? text : `${text} (${total - specified} not as specified)`;
}

const expectedRequests = (c: FaultCase) =>
  c.source.kind === 'refused' ? 'no listener' : c.source.kind === 'proxy' ? '1 CONNECT' : '1 request';

const leaks = (...texts: string[]): string => {
  const found = canariesIn(texts.join('\n'), EVERY_CANARY);
  return found.length === 0 ? '' : ` · leaks ${found.join(', ')}`;
};

let configs = 0;
function writeConfig(config: unknown): string {
  const file = path.join(dir, `config-${configs++}.json`);
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

const baseEnv = () => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: dir,
  TMPDIR: dir,
  LANG: 'C.UTF-8',
});

describe.concurrent('auto-recall hook: `{}`, exit 0, empty stderr, within budget, one request', () => {
  it.for(FAULT_CASES)('$label', async (fault, { expect }) => {
    const target = endpoint(fault);
    const config = writeConfig(genericAutoRecallConfig(root, target.baseUrl, target.timeoutMs));
    const stdin = promptSubmitEvent(root, {
      prompt: PROMPT,
      // The credential pasted into the prompt must be removed before the query leaves.
      submitted_prompt: `${PROMPT}\n${CREDENTIALS.CONTEXT_API_TOKEN}`,
    });
    const before = target.seen('hook');
    const run = await runRuntime('auto-recall.js', {
      stdin,
      cwd: root,
      env: {
        ...baseEnv(),
        QWEN_EXTERNAL_CONTEXT_CONFIG: config,
        CONTEXT_API_TOKEN: CREDENTIALS.CONTEXT_API_TOKEN,
        ...target.env,
      },
      reportUptime: true,
    });
    const uptimeMs = run.uptimeMs ?? Number.POSITIVE_INFINITY;
    const expected = `{} · exit 0 · stderr empty · ${expectedRequests(fault)}`;
    const observed =
      `${run.stdout === '{}' ? '{}' : JSON.stringify(run.stdout.slice(0, 60))} · exit ${run.code ?? run.signal} · ` +
      `stderr ${run.stderr === '' ? 'empty' : JSON.stringify(run.stderr.slice(0, 60))} · ` +
      `${requestsText(before, target.seen('hook'), target.unit)}` +
      leaks(run.stdout, run.stderr);
    hookSection.record({
      subject: fault.label,
      expected: `${expected} · < ${HOOK_BUDGET_MS / 1000} s`,
      observed: `${observed} · ${budget(uptimeMs, HOOK_BUDGET_MS)}`,
    });
    expect(observed).toBe(expected);
    expect(uptimeMs).toBeLessThan(HOOK_BUDGET_MS);
  });
});

type ToolResult = { content?: { type: string; text?: string }[]; isError?: boolean };

async function timedCall(client: Client, name: string, args: Record<string, unknown>) {
  const started = performance.now();
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  return { result, elapsedMs: performance.now() - started };
}

/** The error text of a result that is exactly one isError text part, else a description of what it was. */
function errorText(result: ToolResult): string | undefined {
  const keys = Object.keys(result).sort().join(',');
  if (keys !== 'content,isError' || result.isError !== true) return undefined;
  const [part, ...rest] = result.content ?? [];
  if (part?.type !== 'text' || rest.length > 0 || Object.keys(part).length !== 2) return undefined;
  return part.text;
}

const MCP_BOUND = `< ${MCP_TIMEOUT_MS / 1000} s`;

describe.concurrent('MCP server: search fails with one fixed text, remember is failed or unknown per the table', () => {
  it.for(FAULT_CASES)('$label', async (fault, { expect }) => {
    const target = endpoint(fault);
    const config = writeConfig({
      version: 1,
      timeoutMs: target.timeoutMs,
      write: { enabled: true },
      provider: mem0PlatformProvider(target.mem0Origin, APP_ID),
    });
    const session = await connectMcp(runtimePath('mcp-server.js'), {
      env: {
        ...baseEnv(),
        QWEN_EXTERNAL_CONTEXT_CONFIG: config,
        MEM0_API_KEY: CREDENTIALS.MEM0_API_KEY,
        ...target.env,
      },
      cwd: dir,
      clientName: 'reliability',
    });
    try {
      const beforeSearch = target.seen('search');
      const search = await timedCall(session.client, 'context_search', { query: QUERY });
      const afterSearch = target.seen('search');
      const beforeWrite = target.seen('write');
      const remember = await timedCall(session.client, 'context_remember', { content: CONTENT });
      const afterWrite = target.seen('write');
      const tools = await session.client.listTools().then(
        (r) => r.tools.map((t) => t.name).join(','),
        () => '',
      );

      const searchText = errorText(search.result);
      const searchExpected = `error "${SEARCH_FAILED}" · ${expectedRequests(fault)} · server stderr empty`;
      const searchObserved =
        `${searchText === undefined ? `unexpected ${JSON.stringify(search.result).slice(0, 80)}` : `error "${searchText}"`} · ` +
        `${requestsText(beforeSearch, afterSearch, target.unit)} · ` +
        `server stderr ${session.stderr() === '' ? 'empty' : JSON.stringify(session.stderr().slice(0, 60))}` +
        leaks(JSON.stringify(search.result), session.stderr());
      searchSection.record({
        subject: fault.label,
        expected: `${searchExpected} · ${MCP_BOUND}`,
        observed: `${searchObserved} · ${budget(search.elapsedMs, MCP_TIMEOUT_MS)}`,
      });

      const rememberText = errorText(remember.result);
      const outcome =
        rememberText === REMEMBER_TEXT.failed
          ? 'failed'
          : rememberText === REMEMBER_TEXT.unknown
            ? 'unknown'
            : `unexpected ${JSON.stringify(remember.result).slice(0, 80)}`;
      const rememberExpected = `${fault.remember} (fixed text) · ${expectedRequests(fault)} · server still answers`;
      const rememberObserved =
        `${outcome}${outcome === 'failed' || outcome === 'unknown' ? ' (fixed text)' : ''} · ` +
        `${requestsText(beforeWrite, afterWrite, target.unit)} · ` +
        `${tools === 'context_search,context_remember' ? 'server still answers' : 'server gone'}` +
        leaks(JSON.stringify(remember.result), session.stderr());
      rememberSection.record({
        subject: fault.label,
        expected: `${rememberExpected} · ${MCP_BOUND}`,
        observed: `${rememberObserved} · ${budget(remember.elapsedMs, MCP_TIMEOUT_MS)}`,
      });

      expect(searchObserved).toBe(searchExpected);
      expect(rememberObserved).toBe(rememberExpected);
      expect(search.elapsedMs).toBeLessThan(MCP_TIMEOUT_MS);
      expect(remember.elapsedMs).toBeLessThan(MCP_TIMEOUT_MS);
    } finally {
      await session.client.close();
    }
  });
});
