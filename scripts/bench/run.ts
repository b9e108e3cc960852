// `npm run bench`: start-up cost of every runtime as a ratio against a bare `node` start of an empty
// CommonJS file measured in the same run (alternating pairs, warm-up discarded), plus the worst cases
// of the sanitizer and renderer in milliseconds. Prints a table, writes bench/results.json and
// refreshes the table in README.md between the bench markers.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SANITIZER_INPUTS } from './adversarial.js';
import { renderLauncherInstall, TOKEN, writeJson } from './fixtures.js';
import { timedMcpSession, timedMcpStart } from './mcp-session.js';
import { timedPtyRun, timedRun } from './processes.js';
import { buildReferenceHook } from './reference-hook-build.js';
import { formatTable, type Row, updateReadme } from './report.js';
import { BENCH_NODE, RUNTIME, type Scenario, scenarios } from './scenarios.js';
import { alternate, median, pairStats } from './stats.js';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
const PAIRS = Number(process.env['BENCH_PAIRS'] ?? 41);
const WARMUP = 3;
const NODE = BENCH_NODE;
/** scripts/bench/floor-launcher.cjs, run as it is. */
const FLOOR_LAUNCHER = path.join(ROOT, 'scripts/bench/floor-launcher.cjs');
/** scripts/bench/echo-stdio.cjs: the bare `node` the MCP start rows are measured against. */
const ECHO_STDIO = path.join(ROOT, 'scripts/bench/echo-stdio.cjs');
/** How far above its floor a search row may be, in bare starts (issue 27). */
const SEARCH_OVER_FLOOR = 0.15;
/** How far above its floor the launcher may be (issue 27). */
const LAUNCHER_OVER_FLOOR_MS = 10;

async function main(): Promise<void> {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-bench-')));
  const set = await scenarios(work, { runtime: RUNTIME, referenceHook: await buildReferenceHook(work) });
  const rows: Row[] = [];
  try {
    const timed = (scenario: Scenario) => async () => {
      const run = await timedRun(NODE, scenario.args, scenario);
      if (run.code !== 0 || !scenario.expect(run.stdout)) {
        throw new Error(`${scenario.id} answered ${run.code} ${run.stdout}`);
      }
      return run.ms;
    };
    const bare = timed(set.bare);
    const ratio = async (id: string, target: number, note?: string) => {
      const scenario = set.byId(id);
      process.stderr.write(`bench: ${scenario.name}…\n`);
      const { subject: s, baseline: b } = await alternate(PAIRS, WARMUP, bare, timed(scenario));
      const stats = pairStats(s, b);
      rows.push({
        name: scenario.name,
        unit: 'ratio',
        value: stats.medianRatio,
        target,
        stats,
        ...(note === undefined ? {} : { note }),
      });
      return stats.medianRatio;
    };
    const v1 = writeJson(path.join(work, 'v1.json'), {
      version: 1,
      timeoutMs: 5000,
      provider: { type: 'generic-http-search-v1', baseUrl: set.providerUrl, tokenEnv: 'CONTEXT_API_TOKEN' },
    });
    const serverEnv = { QWEN_EXTERNAL_CONTEXT_CONFIG: v1, CONTEXT_API_TOKEN: TOKEN };

    // BENCH_ONLY=launcher or =mcp measures those rows alone (a quick check while tuning them; the
    // README table is left alone, bench/results.json holds those rows).
    const only = process.env['BENCH_ONLY'];
    if (only === 'launcher' || only === 'mcp') {
      if (only === 'launcher') await launcherOverhead(work, set.providerUrl, rows);
      else await mcpStart(serverEnv, rows);
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    await ratio('noop', 1.1);
    // The search rows are judged against their floor (what Node itself costs for the same request,
    // which no code of ours can remove) + 0.15× of a bare start, all measured in this run.
    const floor = await ratio('floor', Number.NaN);
    const floorNamed = await ratio('floor-named', Number.NaN);
    await ratio('search', floor + SEARCH_OVER_FLOOR, `floor ${floor.toFixed(2)}× + ${SEARCH_OVER_FLOOR}×`);
    await ratio(
      'search-named',
      floorNamed + SEARCH_OVER_FLOOR,
      `floor ${floorNamed.toFixed(2)}× + ${SEARCH_OVER_FLOOR}×`,
    );
    // The credential broker's cost on the hot path: one more loopback hop, a kernel-table lookup per
    // connection, the body check. Against the direct search, in alternating pairs of the same run.
    process.stderr.write('bench: auto-recall search through the credential broker…\n');
    const viaBroker = await alternate(
      PAIRS,
      WARMUP,
      timed(set.byId('search')),
      timed(set.byId('search-broker')),
    );
    const brokerStats = pairStats(viaBroker.subject, viaBroker.baseline);
    rows.push({
      name: 'auto-recall search through the credential broker ÷ the same search direct',
      unit: 'ratio',
      value: brokerStats.medianRatio,
      target: 1.1,
      stats: brokerStats,
      note: 'how much longer a brokered prompt takes',
    });
    await ratio('write-confirmation', 1.1);
    await ratio('approval-guard', 1.1);
    // Upstream's way (zod, process.stdin, undici fetch) against ours, in alternating pairs.
    process.stderr.write('bench: reference hook against ours…\n');
    const vs = await alternate(PAIRS, WARMUP, timed(set.byId('search')), timed(set.byId('reference')));
    const stats = pairStats(vs.subject, vs.baseline);
    rows.push({
      name: 'reference hook (zod, undici fetch) ÷ ours, search by IP literal',
      unit: 'ratio',
      value: stats.medianRatio,
      target: 2.5,
      atLeast: true,
      stats,
      note: 'how many times longer the reference takes',
    });
    process.stderr.write('bench: MCP server session…\n');
    const session = () => timedMcpSession(NODE, path.join(RUNTIME, 'mcp-server.js'), serverEnv);
    const mcp = await alternate(PAIRS, WARMUP, bare, session);
    rows.push({
      name: 'MCP server session (initialize, tools/list, one search)',
      unit: 'ratio',
      value: pairStats(mcp.subject, mcp.baseline).medianRatio,
      target: Number.NaN,
      stats: pairStats(mcp.subject, mcp.baseline),
    });
    await mcpStart(serverEnv, rows);
    await launcherOverhead(work, set.providerUrl, rows);
    await hotPaths(work, rows);
  } finally {
    await set.close();
    fs.rmSync(work, { recursive: true, force: true });
  }

  const results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model ?? 'unknown', node: nodeVersion(NODE) },
    pairs: PAIRS,
    warmup: WARMUP,
    rows,
  };
  fs.mkdirSync(path.join(ROOT, 'bench'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const table = formatTable(results);
  process.stdout.write(`${table}\n`);
  if (!process.argv.includes('--no-readme')) updateReadme(path.join(ROOT, 'README.md'), table);
}

/**
 * The start Qwen waits for at every on-demand or write session (spawn → the `initialize` answer, →
 * the `tools/list` answer), against a bare node that echoes, in alternating pairs.
 */
async function mcpStart(serverEnv: Record<string, string>, rows: Row[]): Promise<void> {
  process.stderr.write('bench: MCP server start…\n');
  const start = await alternate(
    PAIRS,
    WARMUP,
    () => timedMcpStart(NODE, [ECHO_STDIO], {}),
    () => timedMcpStart(NODE, [path.join(RUNTIME, 'mcp-server.js')], serverEnv),
  );
  for (const key of ['initialize', 'tools/list'] as const) {
    const pick = (run: { initialize: number; toolsList: number }) =>
      key === 'initialize' ? run.initialize : run.toolsList;
    const stats = pairStats(start.subject.map(pick), start.baseline.map(pick));
    rows.push({
      name: `MCP server start: spawn → the \`${key}\` answer, against a bare node that echoes`,
      unit: 'ratio',
      value: stats.medianRatio,
      target: Number.NaN,
      stats,
    });
  }
}

/** launch-qwen → stub Qwen under a pty, against `node stub` under a pty; both on the pinned Node. */
async function launcherOverhead(work: string, providerUrl: string, rows: Row[]): Promise<void> {
  process.stderr.write('bench: launcher…\n');
  const node = NODE;
  const installDir = renderLauncherInstall(
    work,
    node,
    path.join(ROOT, 'dist/cli/qwen-managed.js'),
    providerUrl,
    // The launcher checks every file of the Qwen package beside cli.js: measure it on the real one.
    path.join(ROOT, '.cache/e2e/node_modules/@qwen-code/qwen-code'),
  );
  const stub = JSON.parse(
    fs.readFileSync(path.join(installDir, 'profiles/on-demand/launch.json'), 'utf8'),
  ).qwenCli;
  const env = { TERM: 'xterm-256color', CONTEXT_API_TOKEN: TOKEN, PATH: '/usr/bin:/bin' };
  const underPty = (args: string[], what: string) => async () => {
    const run = await timedPtyRun(node, args, { env, cwd: work });
    if (run.code !== 0) throw new Error(`${what} failed: ${run.stdout}`);
    return run.ms;
  };
  const launcher = underPty(
    [path.join(installDir, 'runtime/launch-qwen.js'), '--profile', 'on-demand'],
    'launch-qwen',
  );
  // The floor: only what the launcher's contract makes every start pay (floor-launcher.cjs).
  const floor = underPty([FLOOR_LAUNCHER, installDir, stub], 'floor-launcher.cjs');
  const direct = async () => (await timedPtyRun(node, [stub], { env, cwd: work })).ms;
  const bareStart = async () => (await timedRun(node, [path.join(work, 'empty.cjs')])).ms;
  const { subject: bares } = await alternate(PAIRS, WARMUP, direct, bareStart);
  // What each adds beyond starting one more Node (a launcher start is one Node more than Qwen alone).
  const overhead = async (
    name: string,
    target: number,
    what: string,
    run: () => Promise<number>,
    judged?: string,
  ) => {
    const pairs = await alternate(PAIRS, WARMUP, direct, run);
    const stats = pairStats(pairs.subject, pairs.baseline);
    const value = stats.subjectMedianMs - stats.baselineMedianMs - median(bares);
    const note = `${what}→stub ${stats.subjectMedianMs.toFixed(0)} ms vs node stub ${stats.baselineMedianMs.toFixed(0)} ms`;
    rows.push({
      name,
      unit: 'ms',
      value,
      target,
      stats,
      note: judged === undefined ? note : `${judged}; ${note}`,
    });
    return value;
  };
  // Measured first: the launcher is judged against its floor + 10 ms of the same run.
  const floorMs = await overhead(
    'floor: the launcher contract alone (checksums, Qwen package walk, terminal check, execve)',
    Number.NaN,
    'floor',
    floor,
  );
  await overhead(
    `launcher overhead beyond one extra Node start (${nodeVersion(node)})`,
    floorMs + LAUNCHER_OVER_FLOOR_MS,
    'launch-qwen',
    launcher,
    `floor ${floorMs.toFixed(1)} ms + ${LAUNCHER_OVER_FLOOR_MS} ms`,
  );
  // The per-user QWEN_HOME the launcher created for this throwaway install.
  const id = JSON.parse(
    fs.readFileSync(path.join(installDir, 'profiles/on-demand/launch.json'), 'utf8'),
  ).installId;
  fs.rmSync(path.join(os.userInfo().homedir, '.local/share/qwen-managed', id), {
    recursive: true,
    force: true,
  });
}

function nodeVersion(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/** Cold (first call in a fresh process) and warm worst cases of the sanitizer and the renderer. */
async function hotPaths(work: string, rows: Row[]): Promise<void> {
  process.stderr.write('bench: sanitizer and renderer…\n');
  const bundle = path.join(work, 'hot-paths.cjs');
  await build({
    entryPoints: [path.join(ROOT, 'scripts/bench/hot-paths.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: true,
    logLevel: 'warning',
  });
  const measure = (kind: string, name = '') =>
    JSON.parse(execFileSync(NODE, [bundle, kind, name], { encoding: 'utf8' })) as {
      cold: number;
      warm: number;
    };
  const worst = (samples: { name: string; cold: number; warm: number }[]) =>
    samples.reduce((a, b) => (b.cold > a.cold ? b : a));
  const sanitizer = Object.keys(SANITIZER_INPUTS).map((name) => {
    const runs = Array.from({ length: 5 }, () => measure('sanitizer', name));
    return { name, cold: median(runs.map((r) => r.cold)), warm: median(runs.map((r) => r.warm)) };
  });
  const s = worst(sanitizer);
  rows.push({
    name: 'sanitizer worst case, 1 MiB adversarial input (cold call)',
    unit: 'ms',
    value: s.cold,
    target: 5,
    note: `${s.name}; warm ${s.warm.toFixed(2)} ms`,
  });
  const renders = Array.from({ length: 5 }, () => measure('renderer'));
  const r = { cold: median(renders.map((x) => x.cold)), warm: median(renders.map((x) => x.warm)) };
  rows.push({
    name: 'renderer worst case, 5 hostile oversized items (cold call)',
    unit: 'ms',
    value: r.cold,
    target: 2,
    note: `warm ${r.warm.toFixed(2)} ms`,
  });
}

await main();
