// `npm run bench:instructions`: the hooks' cost as instruction counts under callgrind, against a bare
// `node` start of an empty CommonJS file. Unlike wall time these barely move with machine load, so
// they decide speed questions on a busy machine; `npm run bench` (wall time) stays the product figure.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { RUNTIME_FILES } from '../../src/contracts/runtime-files.js';
import { jsonLineReader, MCP_INITIALIZED, mcpInitializeRequest } from '../../src/deploy/verify/smoke.js';
import { buildRuntimes } from '../build.mjs';
import { TOKEN, writeJson } from './fixtures.js';
import { buildReferenceHooks } from './reference-hook-build.js';
import { BENCH_NODE, installRuntime, type Scenario, scenarios } from './scenarios.js';
import { median } from './stats.js';
import { buildUndone, TRICKS } from './tricks.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
/**
 * V8 seeds its hashing and randomness per process: unseeded, a bare start varies by ±5 % here. Run i
 * passes `--random-seed=i`, which makes each count repeat to a few thousand instructions. (Not
 * `--hash-seed`: it changes V8's flag hash, so Node's built-in code cache is rejected.)
 */
const seedArgs = (run: number) => [`--random-seed=${run + 1}`];

export interface Counted {
  instructions: number;
  stdout: string;
  code: number | null;
}

/** Instructions the process executed (all its threads), as callgrind's summary reports them. */
export function countInstructions(
  node: string,
  args: readonly string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string },
  work: string,
): Promise<Counted> {
  const out = path.join(work, `callgrind.${process.hrtime.bigint()}`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      ['--tool=callgrind', '--trace-children=no', `--callgrind-out-file=${out}`, node, ...args],
      { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? {}, cwd: options.cwd },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.rmSync(out, { force: true });
      const match = /Collected : (\d+)/.exec(stderr);
      if (match === null) return reject(new Error(`callgrind printed no count:\n${stderr}`));
      resolve({ instructions: Number(match[1]), stdout, code });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

/**
 * The MCP server's start as Qwen pays it, counted: spawn → `initialize` answered → `initialized` and
 * `tools/list` sent → answered → stdin closed → exit.
 */
export function countMcpStart(
  node: string,
  args: readonly string[],
  env: Record<string, string>,
  work: string,
): Promise<number> {
  const out = path.join(work, `callgrind.${process.hrtime.bigint()}`);
  return new Promise((resolve, reject) => {
    const child = spawn(
      'valgrind',
      ['--tool=callgrind', '--trace-children=no', `--callgrind-out-file=${out}`, node, ...args],
      { stdio: ['pipe', 'pipe', 'pipe'], env },
    );
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const read = jsonLineReader();
    let stderr = '';
    let listed = false;
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      for (const message of read(chunk) as { id?: number }[]) {
        if (message.id === 1) {
          send(MCP_INITIALIZED);
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        } else if (message.id === 2) {
          listed = true;
          child.stdin.end();
        }
      }
    });
    child.on('error', reject);
    child.on('close', () => {
      fs.rmSync(out, { force: true });
      const match = /Collected : (\d+)/.exec(stderr);
      if (match === null || !listed) return reject(new Error(`no tools/list answer or no count:\n${stderr}`));
      resolve(Number(match[1]));
    });
    send(mcpInitializeRequest('bench'));
  });
}

/** Under valgrind a hook runs ~80× slower: a 6500 ms budget would end it early with the fallback. */
const VALGRIND_BUDGET_MS = 600_000;
const BUDGET = /(export const HOOK_BUDGET_MS = )[\d_]+;/;

/** Rewrites the hook budget wherever it is defined; `rewritten()` says whether any file defined it. */
function longBudget(): { plugin: Plugin; rewritten(): boolean } {
  let found = false;
  const plugin: Plugin = {
    name: 'valgrind-hook-budget',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const text = fs.readFileSync(args.path, 'utf8');
        if (!BUDGET.test(text)) return undefined;
        found = true;
        return { contents: text.replace(BUDGET, `$1${VALGRIND_BUDGET_MS};`), loader: 'ts' };
      });
    },
  };
  return { plugin, rewritten: () => found };
}

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');

async function main(): Promise<void> {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-instructions-')));
  const runtime = path.join(work, 'runtime');
  const budget = longBudget();
  await buildRuntimes(runtime, [budget.plugin]);
  if (!budget.rewritten())
    throw new Error('no HOOK_BUDGET_MS definition found: update scripts/bench/instructions.ts');
  const referenceHooks = await buildReferenceHooks(work, 100);
  const set = await scenarios(work, { runtime, referenceHooks });
  try {
    const only = process.env['BENCH_ONLY']?.split(',');
    // Ours is counted for every scenario a trick is measured on, so its saving has its baseline.
    const onTricks = only?.includes('tricks') ? TRICKS.map((trick) => trick.on as string) : [];
    const picked = set.list.filter(
      (s) => only === undefined || only.includes(s.id) || onTricks.includes(s.id),
    );
    const measure = async (scenario: Scenario) => {
      const counts: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const run = await countInstructions(BENCH_NODE, [...seedArgs(i), ...scenario.args], scenario, work);
        if (run.code !== 0 || !scenario.expect(run.stdout)) {
          throw new Error(`${scenario.id} answered ${run.code} ${run.stdout}`);
        }
        counts.push(run.instructions);
      }
      return median(counts);
    };
    process.stderr.write('instructions: bare node start…\n');
    const bare = await measure(set.bare);
    const rows = [{ id: set.bare.id, name: set.bare.name, instructions: bare, ratio: 1 }];
    for (const scenario of picked) {
      process.stderr.write(`instructions: ${scenario.name}…\n`);
      const instructions = await measure(scenario);
      rows.push({ id: scenario.id, name: scenario.name, instructions, ratio: instructions / bare });
    }
    // Each hook trick of tricks.ts undone: what it saves, in instructions (BENCH_ONLY=tricks alone).
    for (const trick of TRICKS) {
      // The MCP server's trick is counted with its start below (BENCH_ONLY=mcp).
      if (trick.on === 'launcher' || trick.on === 'mcp' || (only !== undefined && !only.includes('tricks'))) {
        continue;
      }
      process.stderr.write(`instructions: trick ${trick.id}…\n`);
      const built = await buildUndone(ROOT, trick, path.join(work, `built-${trick.id}`), runtime, [
        budget.plugin,
      ]);
      const installed = installRuntime(
        built,
        path.join(work, `undone-${trick.id}`),
        trick.noCodeCache !== true,
      );
      const ours = set.byId(trick.on);
      const undone = { ...ours, args: ours.args.map((arg) => path.join(installed, path.basename(arg))) };
      const saved =
        (await measure(undone)) - (rows.find((r) => r.id === ours.id)?.instructions ?? (await measure(ours)));
      rows.push({
        id: `trick-${trick.id}`,
        name: `trick kept: ${trick.name} (saves, on ${trick.on})`,
        instructions: saved,
        ratio: saved / bare,
      });
    }
    // The MCP server's start against a bare node that echoes (BENCH_ONLY=mcp alone).
    if (only === undefined || only.includes('mcp')) {
      const v1 = writeJson(path.join(work, 'v1.json'), {
        version: 1,
        timeoutMs: 5000,
        provider: { type: 'generic-http-search-v1', baseUrl: set.providerUrl, tokenEnv: 'CONTEXT_API_TOKEN' },
      });
      const mcp = async (args: string[], env: Record<string, string>) => {
        const counts: number[] = [];
        for (let i = 0; i < RUNS; i++)
          counts.push(await countMcpStart(BENCH_NODE, [...seedArgs(i), ...args], env, work));
        return median(counts);
      };
      process.stderr.write('instructions: MCP server start…\n');
      const echo = await mcp([path.join(ROOT, 'scripts/bench/echo-stdio.cjs')], {});
      const serverEnv = { QWEN_EXTERNAL_CONTEXT_CONFIG: v1, CONTEXT_API_TOKEN: TOKEN };
      // Installed, with its code cache, as a deployment runs it; and without it (the trick undone).
      const server = await mcp([path.join(set.runtime, RUNTIME_FILES.mcpServer)], serverEnv);
      const uncached = installRuntime(runtime, path.join(work, 'undone-mcp-code-cache'), false);
      const undone = await mcp([path.join(uncached, RUNTIME_FILES.mcpServer)], serverEnv);
      rows.push(
        {
          id: 'mcp-echo',
          name: 'MCP start: a bare node that echoes, spawn → tools/list answer',
          instructions: echo,
          ratio: echo / bare,
        },
        {
          id: 'mcp',
          name: 'MCP server start, spawn → tools/list answer',
          instructions: server,
          ratio: server / bare,
        },
        {
          id: 'trick-mcp-code-cache',
          name: 'trick kept: the MCP server compiled from its render-time V8 code cache (saves, on mcp)',
          instructions: undone - server,
          ratio: (undone - server) / bare,
        },
      );
    }
    const lines = ['| figure | instructions | vs bare node |', '|---|---|---|'];
    for (const row of rows) {
      lines.push(`| ${row.name} | ${(row.instructions / 1e6).toFixed(1)} M | ${row.ratio.toFixed(3)}× |`);
    }
    process.stdout.write(
      `Callgrind, ${RUNS} runs per figure (median), ${BENCH_NODE}\n\n${lines.join('\n')}\n`,
    );
    if (process.env['BENCH_JSON'] !== undefined) {
      fs.writeFileSync(process.env['BENCH_JSON'], `${JSON.stringify(rows, null, 2)}\n`);
    }
  } finally {
    await set.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const invoked = process.argv[1];
if (invoked !== undefined && path.resolve(invoked) === fileURLToPath(import.meta.url)) await main();
