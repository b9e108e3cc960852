// The provider fault matrix through the BUILT runtimes: every fault of fault-table.ts against the
// auto-recall hook (a real child process per prompt) and the MCP server (a real stdio server per
// fault, driven by the official SDK client: one context_search, then one context_remember).
// Every run carries the credential and prompt canaries; nothing a runtime prints may contain them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  ALL_CANARIES,
  type CanaryName,
  CONTENT_CANARY,
  CREDENTIALS,
  canariesIn,
  PROMPT_CANARY,
} from '../../fixtures/canaries.js';
import { type FaultServer, refusedUrl, startFaultServer } from '../../fixtures/fault-server.js';
import { promptSubmitEvent } from '../../fixtures/hook-events.js';
import { connectMcp } from '../../fixtures/mcp-client.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { budget, ReliabilitySection } from '../../fixtures/reliability-report.js';
import { runRuntime, runtimePath } from '../../fixtures/run-runtime.js';
import { genericAutoRecallConfig, mem0PlatformProvider } from '../../fixtures/runtime-config.js';
import { FAULT_CASES, FAULT_LABELS, type FaultCase } from './fault-table.js';

/** autoRecall.timeoutMs of the hook's config, and the hook's answer budget (Node start included, noisy CI). */
const HOOK_PROVIDER_TIMEOUT_MS = 500;
const HOOK_BUDGET_MS = 3000;
/** v1 timeoutMs of the MCP config, and the budget per tool call (Qwen's MCP call timeout is 8 s). */
const MCP_PROVIDER_TIMEOUT_MS = 1000;
const MCP_BUDGET_MS = 4000;

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
    `\`autoRecall.timeoutMs: ${HOOK_PROVIDER_TIMEOUT_MS}\`, a Generic HTTP provider, a prompt carrying the ` +
    `credential and a prompt marker, and the credential in its environment. "1 request" means exactly one request ` +
    `with the specified wire form (sanitized query, one credential header); budget = provider timeout + Node start, ` +
    `far inside the hook's own 6.5 s.`,
  FAULT_LABELS,
);
const searchSection = new ReliabilitySection(
  'faults-mcp-search',
  `One MCP server per fault (\`timeoutMs: ${MCP_PROVIDER_TIMEOUT_MS}\`, Mem0 \`mem0-platform-v3\` preset, write enabled), ` +
    `driven by the official SDK client over stdio. The search is the first call of the session.`,
  FAULT_LABELS,
);
const rememberSection = new ReliabilitySection(
  'faults-mcp-remember',
  `The same server, second call: \`context_remember\` through the preset's write path. Outcome table ` +
    `(providers.md): a thrown 400/401/403/404 is \`failed\`; every other failure is \`unknown\`. Each answer is ` +
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
      return { baseUrl: refused, mem0Origin: refused, env: {}, seen: () => undefined, unit: 'request' };
    case 'server': {
      const server = servers.get(c.label)!;
      return {
        baseUrl: server.url,
        mem0Origin: server.url,
        env: {},
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
    const config = writeConfig(genericAutoRecallConfig(root, target.baseUrl, HOOK_PROVIDER_TIMEOUT_MS));
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
    });
    const expected = `{} · exit 0 · stderr empty · ${expectedRequests(fault)} · < ${HOOK_BUDGET_MS / 1000} s`;
    const observed =
      `${run.stdout === '{}' ? '{}' : JSON.stringify(run.stdout.slice(0, 60))} · exit ${run.code ?? run.signal} · ` +
      `stderr ${run.stderr === '' ? 'empty' : JSON.stringify(run.stderr.slice(0, 60))} · ` +
      `${requestsText(before, target.seen('hook'), target.unit)} · ${budget(run.elapsedMs, HOOK_BUDGET_MS)}` +
      leaks(run.stdout, run.stderr);
    hookSection.record({ subject: fault.label, expected, observed });
    expect(observed).toBe(expected);
    expect(run.elapsedMs).toBeLessThan(6500);
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

describe.concurrent('MCP server: search fails with one fixed text, remember is failed or unknown per the table', () => {
  it.for(FAULT_CASES)('$label', async (fault, { expect }) => {
    const target = endpoint(fault);
    const config = writeConfig({
      version: 1,
      timeoutMs: MCP_PROVIDER_TIMEOUT_MS,
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
      const searchExpected = `error "${SEARCH_FAILED}" · ${expectedRequests(fault)} · < ${MCP_BUDGET_MS / 1000} s · server stderr empty`;
      const searchObserved =
        `${searchText === undefined ? `unexpected ${JSON.stringify(search.result).slice(0, 80)}` : `error "${searchText}"`} · ` +
        `${requestsText(beforeSearch, afterSearch, target.unit)} · ${budget(search.elapsedMs, MCP_BUDGET_MS)} · ` +
        `server stderr ${session.stderr() === '' ? 'empty' : JSON.stringify(session.stderr().slice(0, 60))}` +
        leaks(JSON.stringify(search.result), session.stderr());
      searchSection.record({ subject: fault.label, expected: searchExpected, observed: searchObserved });

      const rememberText = errorText(remember.result);
      const outcome =
        rememberText === REMEMBER_TEXT.failed
          ? 'failed'
          : rememberText === REMEMBER_TEXT.unknown
            ? 'unknown'
            : `unexpected ${JSON.stringify(remember.result).slice(0, 80)}`;
      const rememberExpected = `${fault.remember} (fixed text) · ${expectedRequests(fault)} · < ${MCP_BUDGET_MS / 1000} s · server still answers`;
      const rememberObserved =
        `${outcome}${outcome === 'failed' || outcome === 'unknown' ? ' (fixed text)' : ''} · ` +
        `${requestsText(beforeWrite, afterWrite, target.unit)} · ${budget(remember.elapsedMs, MCP_BUDGET_MS)} · ` +
        `${tools === 'context_search,context_remember' ? 'server still answers' : 'server gone'}` +
        leaks(JSON.stringify(remember.result), session.stderr());
      rememberSection.record({
        subject: fault.label,
        expected: rememberExpected,
        observed: rememberObserved,
      });

      expect(searchObserved).toBe(searchExpected);
      expect(rememberObserved).toBe(rememberExpected);
    } finally {
      await session.client.close();
    }
  });
});
