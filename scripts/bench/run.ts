// `npm run bench`: start-up cost of every runtime as a ratio against a bare `node` start of an empty
// CommonJS file measured in the same run (warm-up discarded, the order rotating from round to round),
// each kept start-up trick against a build with it undone, plus the worst cases of the sanitizer and
// renderer in milliseconds. Prints a table, writes bench/results.json and refreshes the table in
// README.md between the bench markers. BENCH_BEFORE=<a built checkout> measures that checkout's
// runtimes and launcher in the same rounds (the table's "before" column).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { RUNTIME_FILES } from '../../src/contracts/runtime-files.js';
import { SOCKET_TABLE_FILES } from '../../src/host/proc-net.js';
import { SANITIZER_INPUTS } from './adversarial.js';
import { renderLauncherInstall, TOKEN, writeJson } from './fixtures.js';
import { timedMcpSession, timedMcpStart } from './mcp-session.js';
import { timedPtyRun, timedRun } from './processes.js';
import { buildReferenceHooks } from './reference-hook-build.js';
import { formatTable, type Row, signed, updateReadme } from './report.js';
import { BENCH_NODE, installRuntime, RUNTIME, type Scenario, scenarios } from './scenarios.js';
import {
  median,
  medianDifference,
  overPerRound,
  type PairStats,
  pairStats,
  rotate,
  type Spread,
} from './stats.js';
import { buildUndone, TRICK_MIN_MS, TRICKS, type Trick } from './tricks.js';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
// 81: in the VM's slow phase a cheap hook's per-round ratio spreads 0.2–0.4× (p10–p90), and two
// runs of 41 rounds of one build read its median 0.03–0.12× apart (docs/performance.md).
const PAIRS = Number(process.env['BENCH_PAIRS'] ?? 81);
const WARMUP = 3;
const NODE = BENCH_NODE;
const BEFORE = process.env['BENCH_BEFORE'];
/** scripts/bench/floor-launcher.cjs, run as it is. */
const FLOOR_LAUNCHER = path.join(ROOT, 'scripts/bench/floor-launcher.cjs');
/** scripts/bench/echo-stdio.cjs: the bare `node` the MCP start rows are measured against. */
const ECHO_STDIO = path.join(ROOT, 'scripts/bench/echo-stdio.cjs');
/** The real Qwen package: the launcher checks every file of it, so it is measured on the real one. */
const QWEN_PACKAGE = path.join(ROOT, '.cache/e2e/node_modules/@qwen-code/qwen-code');
/** How far above its floor a search row may be, in bare starts (issue 27). */
const SEARCH_OVER_FLOOR = 0.15;
/** How far above its floor the launcher may be (issue 27). */
const LAUNCHER_OVER_FLOOR_MS = 10;

type Timed = () => Promise<number>;

/** The rows of the kernel's IPv4 socket table now (what the broker's peer lookup reads through). */
function tableRows(): number {
  return fs.readFileSync(SOCKET_TABLE_FILES.tcp, 'latin1').split('\n').length - 2;
}

/**
 * `ours` (and the before checkout's, when there is one) against `baseline` in the same rounds:
 * ours's stats, and the before one's median ratio.
 */
async function measured(
  baseline: Timed,
  ours: Timed,
  before?: Timed,
): Promise<{ stats: PairStats; before?: number; overBefore?: Spread; runs: number[][] }> {
  const runs = await rotate(
    PAIRS,
    WARMUP,
    before === undefined ? [baseline, ours] : [baseline, ours, before],
  );
  const [base, mine, theirs] = runs as [number[], number[], number[] | undefined];
  return {
    stats: pairStats(mine, base),
    ...(theirs === undefined ? {} : beforeFigures(mine, theirs, base)),
    runs,
  };
}

/** The before checkout's figure, and how far ours is above it round by round (issue 27's 0.05× bar). */
function beforeFigures(
  ours: readonly number[],
  before: readonly number[],
  base: readonly number[],
): { before: number; overBefore: Spread } {
  return { before: pairStats(before, base).medianRatio, overBefore: overPerRound(ours, before, base) };
}

async function main(): Promise<void> {
  const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-bench-')));
  const set = await scenarios(work, { runtime: RUNTIME, referenceHooks: await buildReferenceHooks(work) });
  // The before checkout's runtimes, installed the same way (its own code cache made by this node).
  const beforeInstalled =
    BEFORE === undefined
      ? undefined
      : installRuntime(path.join(BEFORE, 'dist/runtime'), path.join(work, 'before-install'));
  const rows: Row[] = [];
  try {
    const timed = (scenario: Scenario) => async () => {
      const run = await timedRun(NODE, scenario.args, scenario);
      if (run.code !== 0 || !scenario.expect(run.stdout)) {
        throw new Error(`${scenario.id} answered ${run.code} ${run.stdout}`);
      }
      return run.ms;
    };
    /** The scenario on the before checkout's runtimes (undefined when it runs none of ours). */
    const beforeOf = (scenario: Scenario): Timed | undefined => {
      if (beforeInstalled === undefined || !scenario.args.some((arg) => arg.startsWith(set.runtime))) {
        return undefined;
      }
      const args = scenario.args.map((arg) => arg.replace(set.runtime, beforeInstalled));
      return timed({ ...scenario, args });
    };
    const bare = timed(set.bare);
    const ratio = async (id: string, target: number, note?: string) => {
      const scenario = set.byId(id);
      process.stderr.write(`bench: ${scenario.name}…\n`);
      const { stats, before, overBefore } = await measured(bare, timed(scenario), beforeOf(scenario));
      rows.push({
        name: scenario.name,
        unit: 'ratio',
        value: stats.medianRatio,
        target,
        stats,
        ...(before === undefined ? {} : { before, overBefore }),
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
    // As a deployment has them: installed, with their code caches (the before checkout's too).
    const servers = [path.join(set.runtime, RUNTIME_FILES.mcpServer)];
    if (beforeInstalled !== undefined) servers.push(path.join(beforeInstalled, RUNTIME_FILES.mcpServer));

    // The search rows and their floors: each search in the same rotating rounds as its floor and the
    // bare start, so `ours − floor` is taken under the same machine load (the launcher's rows do the
    // same). Measured apart, the floor and ours were a few minutes apart and the VM's phase moved
    // between them: the floor read 1.12× in one full run and 1.17× in the next.
    const searchRow = async (floorId: string, oursId: string) => {
      const floorScenario = set.byId(floorId);
      const oursScenario = set.byId(oursId);
      process.stderr.write(`bench: ${oursScenario.name}, with its floor…\n`);
      const before = beforeOf(oursScenario);
      const runs = await rotate(PAIRS, WARMUP, [
        bare,
        timed(floorScenario),
        timed(oursScenario),
        ...(before === undefined ? [] : [before]),
      ]);
      const [base, floorRuns, oursRuns, beforeRuns] = runs as [number[], number[], number[], number[]?];
      const floorStats = pairStats(floorRuns, base);
      const stats = pairStats(oursRuns, base);
      // Over the floor round by round, in bare starts: the figure the target bounds, without the
      // floor's and ours' medians coming from different rounds.
      const over = overPerRound(oursRuns, floorRuns, base);
      rows.push({
        name: floorScenario.name,
        unit: 'ratio',
        value: floorStats.medianRatio,
        target: Number.NaN,
        stats: floorStats,
      });
      rows.push({
        name: oursScenario.name,
        unit: 'ratio',
        value: stats.medianRatio,
        target: floorStats.medianRatio + SEARCH_OVER_FLOOR,
        stats,
        ...(beforeRuns === undefined ? {} : beforeFigures(oursRuns, beforeRuns, base)),
        note:
          `floor ${floorStats.medianRatio.toFixed(2)}× + ${SEARCH_OVER_FLOOR}×, same rounds; ` +
          `over the floor per round: median ${signed(over.median)}×, p10–p90 ` +
          `${signed(over.p10)}–${signed(over.p90)}×`,
      });
      return { floor: floorStats.medianRatio, ours: stats.medianRatio };
    };
    /** Both search rows; the IP-literal pair's figures (the reference rows' note uses them). */
    const searchRows = async () => {
      const byLiteral = await searchRow('floor', 'search');
      await searchRow('floor-named', 'search-named');
      return byLiteral;
    };

    // The credential broker's cost on the hot path: one more loopback hop, a kernel-table lookup per
    // connection, the body check. Against the direct search, in alternating pairs of the same run.
    const brokerRow = async () => {
      process.stderr.write('bench: auto-recall search through the credential broker…\n');
      // The peer lookup reads the kernel's table up to the caller's row, so its cost grows with the
      // rows before it, mostly the TIME_WAIT rows of the bench's own requests of the last minute.
      const rowsFirst = tableRows();
      const [direct, viaBroker] = await rotate(PAIRS, WARMUP, [
        timed(set.byId('search')),
        timed(set.byId('search-broker')),
      ]);
      const rowsLast = tableRows();
      const brokerStats = pairStats(viaBroker!, direct!);
      rows.push({
        name: 'auto-recall search through the credential broker ÷ the same search direct',
        unit: 'ratio',
        value: brokerStats.medianRatio,
        target: 1.1,
        stats: brokerStats,
        note: `how much longer a brokered prompt takes; ${SOCKET_TABLE_FILES.tcp} held ${rowsFirst} rows at the first round, ${rowsLast} at the last`,
      });
    };

    /** The rows of the hooks that do not search: each against a bare start (and before), same rounds. */
    const hookRows = async () => {
      await ratio('noop', 1.1);
      await ratio('write-confirmation', 1.1);
      await ratio('approval-guard', 1.1);
    };
    // BENCH_ONLY=launcher, =search (the search rows with their floors), =hooks (no-op, write
    // confirmation, guard), =broker, =mcp, =tricks (the hooks' tricks) or =hot-paths (sanitizer and
    // renderer) measures those rows alone (a quick check while tuning them; the README table is left
    // alone, bench/results.json holds those rows).
    const only = process.env['BENCH_ONLY'];
    if (['launcher', 'search', 'hooks', 'broker', 'mcp', 'tricks', 'hot-paths'].includes(only ?? '')) {
      if (only === 'launcher') await launcherRows(work, set.providerUrl, rows);
      else if (only === 'hooks') await hookRows();
      else if (only === 'search') await searchRows();
      else if (only === 'broker') await brokerRow();
      else if (only === 'mcp') await mcpStart(servers, serverEnv, rows);
      else if (only === 'hot-paths') await hotPaths(work, rows);
      else await hookTricks(work, set, timed, serverEnv, rows);
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return;
    }
    await ratio('noop', 1.1);
    // The search rows are judged against their floor (what Node itself costs for the same request,
    // which no code of ours can remove) + 0.15× of a bare start, all measured in the same rounds.
    const { floor, ours } = await searchRows();
    await brokerRow();
    await ratio('write-confirmation', 1.1);
    await ratio('approval-guard', 1.1);
    // Upstream's way (zod, process.stdin, undici fetch) against ours, in the same rounds: built the
    // way upstream's is (the target), and bundled like ours (the floor's own limit: no target).
    const search = set.byId('search');
    const beforeSearch = beforeOf(search);
    for (const [id, target] of [
      ['reference', 2.5],
      ['reference-bundled', Number.NaN],
    ] as const) {
      const reference = set.byId(id);
      process.stderr.write(`bench: ${reference.name} against ours…\n`);
      const vs = await measured(timed(search), timed(reference));
      const beforeVs =
        beforeSearch === undefined ? undefined : await measured(beforeSearch, timed(reference));
      rows.push({
        name: `${reference.name.replace(', provider by IP literal', '')} ÷ ours, search by IP literal`,
        unit: 'ratio',
        value: vs.stats.medianRatio,
        target,
        atLeast: true,
        stats: vs.stats,
        ...(beforeVs === undefined ? {} : { before: beforeVs.stats.medianRatio }),
        // What the bare node:net request (the floor) would score in ours' place: no hook can beat it.
        note: `how many times longer the reference takes; the floor in ours' place: ${((vs.stats.medianRatio * ours) / floor).toFixed(2)}×`,
      });
    }
    process.stderr.write('bench: MCP server session…\n');
    const session = (server: string) => () => timedMcpSession(NODE, server, serverEnv);
    const mcp = await measured(
      bare,
      session(servers[0]!),
      servers[1] === undefined ? undefined : session(servers[1]),
    );
    rows.push({
      name: 'MCP server session (initialize, tools/list, one search)',
      unit: 'ratio',
      value: mcp.stats.medianRatio,
      target: Number.NaN,
      stats: mcp.stats,
      ...(mcp.before === undefined ? {} : { before: mcp.before, overBefore: mcp.overBefore }),
    });
    await mcpStart(servers, serverEnv, rows);
    await hookTricks(work, set, timed, serverEnv, rows);
    await launcherRows(work, set.providerUrl, rows);
    await hotPaths(work, rows);
  } finally {
    await set.close();
    fs.rmSync(work, { recursive: true, force: true });
  }

  const results = {
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model ?? 'unknown',
      node: nodeVersion(NODE),
      loadavg: os.loadavg().map((load) => Number(load.toFixed(1))),
    },
    pairs: PAIRS,
    warmup: WARMUP,
    ...(BEFORE === undefined ? {} : { before: BEFORE }),
    rows,
  };
  fs.mkdirSync(path.join(ROOT, 'bench'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, 'bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
  const table = formatTable(results);
  process.stdout.write(`${table}\n`);
  if (!process.argv.includes('--no-readme')) updateReadme(path.join(ROOT, 'README.md'), table);
}

/** A kept trick's row: what undoing it costs where it is paid, median of per-round differences. */
function trickRow(trick: Trick, undone: number[], ours: number[], paid: string): Row {
  return {
    name: `trick kept: ${trick.name} (ms saved per ${paid})`,
    unit: 'ms',
    value: medianDifference(undone, ours),
    target: TRICK_MIN_MS,
    atLeast: true,
    stats: pairStats(undone, ours),
    note: 'undone ÷ ours',
  };
}

const PAID = {
  noop: 'hook start',
  search: 'search prompt',
  'write-confirmation': 'write confirmation',
  'approval-guard': 'tool call that runs no repository code',
  mcp: 'on-demand or write session start',
};

/** Each hook trick of tricks.ts: ours against a build with the trick undone, in the same rounds. */
async function hookTricks(
  work: string,
  set: Awaited<ReturnType<typeof scenarios>>,
  timed: (scenario: Scenario) => Timed,
  serverEnv: Record<string, string>,
  rows: Row[],
): Promise<void> {
  for (const trick of TRICKS) {
    if (trick.on === 'launcher') continue;
    process.stderr.write(`bench: trick ${trick.id}…\n`);
    const built = await buildUndone(ROOT, trick, path.join(work, `built-${trick.id}`), RUNTIME);
    const installed = installRuntime(
      built,
      path.join(work, `undone-${trick.id}`),
      trick.noCodeCache !== true,
    );
    if (trick.on === 'mcp') {
      // Spawn → the tools/list answer: the start Qwen waits for (the MCP start rows' figure).
      const start = (runtime: string) => async () =>
        (await timedMcpStart(NODE, [path.join(runtime, RUNTIME_FILES.mcpServer)], serverEnv)).toolsList;
      const [mine, theirs] = await rotate(PAIRS, WARMUP, [start(set.runtime), start(installed)]);
      rows.push(trickRow(trick, theirs!, mine!, PAID[trick.on]));
      continue;
    }
    const ours = set.byId(trick.on);
    const undone = { ...ours, args: ours.args.map((arg) => arg.replace(set.runtime, installed)) };
    const [mine, theirs] = await rotate(PAIRS, WARMUP, [timed(ours), timed(undone)]);
    rows.push(trickRow(trick, theirs!, mine!, PAID[trick.on]));
  }
}

/**
 * The start Qwen waits for at every on-demand or write session (spawn → the `initialize` answer, →
 * the `tools/list` answer), against a bare node that echoes, in the same rounds.
 */
async function mcpStart(servers: string[], serverEnv: Record<string, string>, rows: Row[]): Promise<void> {
  process.stderr.write('bench: MCP server start…\n');
  const runs = await rotate(PAIRS, WARMUP, [
    () => timedMcpStart(NODE, [ECHO_STDIO], {}),
    ...servers.map((server) => () => timedMcpStart(NODE, [server], serverEnv)),
  ]);
  const [echo, ours, before] = runs;
  for (const key of ['initialize', 'toolsList'] as const) {
    const pick = (list: { initialize: number; toolsList: number }[]) => list.map((run) => run[key]);
    const stats = pairStats(pick(ours!), pick(echo!));
    rows.push({
      name: `MCP server start: spawn → the \`${key === 'toolsList' ? 'tools/list' : key}\` answer, against a bare node that echoes`,
      unit: 'ratio',
      value: stats.medianRatio,
      target: Number.NaN,
      stats,
      ...(before === undefined ? {} : beforeFigures(pick(ours!), pick(before), pick(echo!))),
    });
  }
}

/**
 * launch-qwen → stub Qwen under a pty, against `node stub` under a pty, both on the pinned Node: the
 * launcher's floor, the launcher (judged against that floor + 10 ms), and its tricks undone.
 */
async function launcherRows(work: string, providerUrl: string, rows: Row[]): Promise<void> {
  process.stderr.write('bench: launcher…\n');
  const node = NODE;
  const cli = path.join(ROOT, 'dist/cli/qwen-managed.js');
  const installDir = renderLauncherInstall(work, node, cli, providerUrl, QWEN_PACKAGE);
  const installs = [installDir];
  const stub = JSON.parse(
    fs.readFileSync(path.join(installDir, 'profiles/on-demand/launch.json'), 'utf8'),
  ).qwenCli;
  const env = { TERM: 'xterm-256color', CONTEXT_API_TOKEN: TOKEN, PATH: '/usr/bin:/bin' };
  const underPty = (args: string[], what: string) => async () => {
    const run = await timedPtyRun(node, args, { env, cwd: work });
    if (run.code !== 0) throw new Error(`${what} failed: ${run.stdout}`);
    return run.ms;
  };
  // As bin/launch-qwen runs it: through launch-qwen-start.js (the before checkout has none).
  const launcherOf = (dir: string, what: string, entry: string = RUNTIME_FILES.launcherStart) =>
    underPty([path.join(dir, 'runtime', entry), '--profile', 'on-demand'], what);
  const launcher = launcherOf(installDir, 'launch-qwen');
  let before: Timed | undefined;
  if (BEFORE !== undefined) {
    // The before checkout's own render and launcher, into an install beside ours.
    const beforeDir = renderLauncherInstall(
      work,
      node,
      path.join(BEFORE, 'dist/cli/qwen-managed.js'),
      providerUrl,
      QWEN_PACKAGE,
      {
        name: 'before',
        runtimeDir: path.join(BEFORE, 'dist/runtime'),
      },
    );
    installs.push(beforeDir);
    before = launcherOf(beforeDir, 'the before launch-qwen', RUNTIME_FILES.launcher);
  }
  // The floor: only what the launcher's contract makes every start pay (floor-launcher.cjs).
  const floor = underPty([FLOOR_LAUNCHER, installDir, stub], 'floor-launcher.cjs');
  const direct = async () => (await timedPtyRun(node, [stub], { env, cwd: work })).ms;
  const bareStart = async () => (await timedRun(node, [path.join(work, 'empty.cjs')])).ms;
  const [, bares] = await rotate(PAIRS, WARMUP, [direct, bareStart]);
  // What each adds beyond starting one more Node (a launcher start is one Node more than Qwen alone).
  const overhead = (runs: number[], directs: number[]) => median(runs) - median(directs) - median(bares!);
  const note = (what: string, runs: number[], directs: number[]) =>
    `${what}→stub ${median(runs).toFixed(0)} ms vs node stub ${median(directs).toFixed(0)} ms`;
  // The floor, the launcher (and the before launcher) in the same rounds: the launcher is judged
  // against its floor + 10 ms, and both are taken under the same machine load.
  const launched = (await rotate(
    PAIRS,
    WARMUP,
    before === undefined ? [direct, floor, launcher] : [direct, floor, launcher, before],
  )) as [number[], number[], number[], number[] | undefined];
  const [directs, floors] = launched;
  const floorMs = overhead(floors, directs);
  rows.push({
    name: 'floor: the launcher contract alone (checksums, Qwen package walk, terminal check, execve)',
    unit: 'ms',
    value: floorMs,
    target: Number.NaN,
    stats: pairStats(floors, directs),
    note: note('floor', floors, directs),
  });
  rows.push({
    name: `launcher overhead beyond one extra Node start (${nodeVersion(node)})`,
    unit: 'ms',
    value: overhead(launched[2], directs),
    target: floorMs + LAUNCHER_OVER_FLOOR_MS,
    stats: pairStats(launched[2], directs),
    ...(launched[3] === undefined ? {} : { before: overhead(launched[3], directs) }),
    note: `floor ${floorMs.toFixed(1)} ms + ${LAUNCHER_OVER_FLOOR_MS} ms; ${note('launch-qwen', launched[2], directs)}`,
  });
  for (const trick of TRICKS.filter((t) => t.on === 'launcher')) {
    process.stderr.write(`bench: trick ${trick.id}…\n`);
    let undone: Timed;
    if (trick.noCodeCache === true) {
      // The same install, its launcher bundle run directly: compiled from source at every start.
      undone = launcherOf(installDir, trick.id, RUNTIME_FILES.launcher);
    } else {
      const runtimeDir = await buildUndone(ROOT, trick, path.join(work, `built-${trick.id}`), RUNTIME);
      const undoneDir = renderLauncherInstall(work, node, cli, providerUrl, QWEN_PACKAGE, {
        name: trick.id,
        runtimeDir,
      });
      installs.push(undoneDir);
      undone = launcherOf(undoneDir, trick.id);
    }
    const [mine, theirs] = await rotate(PAIRS, WARMUP, [launcher, undone]);
    rows.push(trickRow(trick, theirs!, mine!, 'session start'));
  }
  // The per-user QWEN_HOME the launcher created for each throwaway install.
  for (const dir of installs) {
    const id = JSON.parse(
      fs.readFileSync(path.join(dir, 'profiles/on-demand/launch.json'), 'utf8'),
    ).installId;
    fs.rmSync(path.join(os.userInfo().homedir, '.local/share/qwen-managed', id), {
      recursive: true,
      force: true,
    });
  }
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
