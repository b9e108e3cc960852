// No data lost: renders into the same install directory at the same time, renders killed with
// SIGKILL mid-write, and rollbacks after a killed render must all end with a tree that
// `qwen-managed verify --deployment` accepts for ONE of the deployments involved (manifest hashes
// match, nothing unlisted) and no temp file left. Real processes throughout: the built CLI, and a
// child that renders with the CLI's own library calls but can pause at an exact writer event
// (paused-render.ts), so kill points and interleavings are deterministic.
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../../src/deploy/atomic-file.js';
import { CREDENTIAL_NAMES, CREDENTIALS, filesUnder, scanTexts } from '../../fixtures/canaries.js';
import { KeyedSection } from '../../fixtures/reliability-report.js';
import { spawnTsChild } from '../../fixtures/run-child.js';
import { ROOT, RUNTIME_DIR } from '../../fixtures/run-runtime.js';
import { type ProgramRun, runCli } from './cli.js';

const PAUSED_RENDER = path.join(ROOT, 'test', 'integration', 'reliability', 'paused-render.ts');
const ROUNDS = { different: 5, same: 3 } as const;
/** Each bundled runtime padded to this size, so that staging a render takes long enough to be killed in. */
const BIG_RUNTIME_BYTES = 16 * 1024 * 1024;

const SUBJECTS = {
  different: `two \`qwen-managed render\` processes started together on the same directory, different deployments (${ROUNDS.different} rounds)`,
  same: `two \`qwen-managed render\` processes started together on the same directory, same deployment (${ROUNDS.same} rounds)`,
  interleaved:
    'a render of D2 paused at its first staged file while `qwen-managed render` of D1 runs to completion, then resumed',
  killStaging: '`qwen-managed render` SIGKILLed while staging (temp files present), then rendered again',
  killReplacing: 'a render SIGKILLed halfway through replacing files, then `qwen-managed render` again',
  rollbackStaging: 'a render SIGKILLed while staging, then `qwen-managed rollback --profile auto-recall`',
  rollbackOther:
    'a render SIGKILLed just before the manifest, having changed only another profile, then `qwen-managed rollback --profile auto-recall`',
  rollbackSame:
    'a render SIGKILLed just before the manifest, having changed the rolled-back profile, then `qwen-managed rollback --profile auto-recall`',
  adopted:
    'runtime/auto-recall.js changed after render (tampering, or the bytes of an interrupted render), then `qwen-managed rollback --profile on-demand`',
};
const CONSISTENT = 'verifies against one of the deployments · no temp file';
const EXPECTED = {
  different: `every round: each render exits 0 or refuses cleanly (1) · ${CONSISTENT}`,
  same: `every round: each render exits 0 or refuses cleanly (1) · ${CONSISTENT}`,
  interleaved: `each render completes or refuses cleanly · ${CONSISTENT}`,
  killStaging: `killed while staging · re-render exits 0 · ${CONSISTENT}`,
  killReplacing: `killed while replacing · re-render exits 0 · ${CONSISTENT}`,
  rollbackStaging: `rollback exits 0 and the tree ${CONSISTENT}, or refuses without writing and re-render + rollback does`,
  rollbackOther: `rollback exits 0 and the tree ${CONSISTENT}, or refuses without writing and re-render + rollback does`,
  rollbackSame: `rollback exits 0 and the tree ${CONSISTENT}, or refuses without writing and re-render + rollback does`,
  adopted: 'rollback refuses without writing, or verify still reports the changed file',
};
const section = new KeyedSection(
  'no-data-lost',
  'Install trees rendered from `test/fixtures/deploy/all-profiles.json` (D0) and two variants: D1 changes every ' +
    'profile\'s system settings, D2 only the on-demand provider config. "Verifies" = `qwen-managed verify --deployment ' +
    '<D> --json --skip-smoke` reports no error for one of the deployments involved (file hashes, nothing unlisted, ' +
    'no drift). The first column describes the fault; kill points come from writer events, except for the staging ' +
    'kill of the real CLI, which is triggered by the temp files appearing.',
  SUBJECTS,
  EXPECTED,
);

let tmp: string;
let bigRuntime: string;
const deployments: Record<'D0' | 'D1' | 'D2', string> = { D0: '', D1: '', D2: '' };

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'qm-no-data-lost-')));
  const d0 = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'deploy', 'all-profiles.json'), 'utf8'),
  );
  const d1 = structuredClone(d0);
  d1.settings.model.name = 'model-d1';
  const d2 = structuredClone(d0);
  d2.profiles['on-demand'].timeoutMs = 3000;
  for (const [name, value] of Object.entries({ D0: d0, D1: d1, D2: d2 })) {
    const file = path.join(tmp, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
    deployments[name as keyof typeof deployments] = file;
  }
  bigRuntime = path.join(tmp, 'big-runtime');
  fs.mkdirSync(bigRuntime);
  for (const name of fs.readdirSync(RUNTIME_DIR)) {
    const bytes = fs.readFileSync(path.join(RUNTIME_DIR, name));
    // Same program, padded with a trailing comment: a complete copy is visible in the bytes.
    const pad = name.endsWith('.js') ? `\n/*${'x'.repeat(BIG_RUNTIME_BYTES)}*/\n` : '';
    fs.writeFileSync(path.join(bigRuntime, name), Buffer.concat([bytes, Buffer.from(pad)]));
  }
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
  section.write();
});

// The credential canaries are in every environment: nothing printed may contain them.
const env = () => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: tmp,
  LANG: 'C.UTF-8',
  ...CREDENTIALS,
});
const printed = new Map<string, string>();
let runs = 0;
async function cli(
  args: string[],
  killAfterMs = 60_000,
  onSpawn?: (c: ChildProcess) => void,
): Promise<ProgramRun> {
  const run = await runCli(args, {
    cwd: tmp,
    env: env(),
    killAfterMs,
    ...(onSpawn === undefined ? {} : { onSpawn }),
  });
  printed.set(`${runs++} ${args.join(' ')}`, `${run.stdout}\n${run.stderr}`);
  return run;
}
/** Paused render children still alive: killed after each test, whatever happened in it. */
const alive = new Set<() => void>();
afterEach(() => {
  for (const kill of alive) kill();
  alive.clear();
});
let dirs = 0;
const freshDir = () => path.join(tmp, `install-${dirs++}`);
const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

function render(
  dir: string,
  deployment: string,
  runtimeDir = RUNTIME_DIR,
  onSpawn?: (c: ChildProcess) => void,
) {
  return cli(
    ['render', '--deployment', deployment, '--out', dir, '--runtime-dir', runtimeDir],
    60_000,
    onSpawn,
  );
}

function rollback(dir: string, kind = 'auto-recall'): Promise<ProgramRun> {
  return cli(['rollback', '--dir', dir, '--profile', kind]);
}

/**
 * Whether the tree verifies against one of the deployments (no error-severity check fails): verify
 * hashes every file, so it stops at the first that does.
 */
async function verifiesAgainstOne(
  dir: string,
  names: readonly (keyof typeof deployments)[],
  runtimeDir = RUNTIME_DIR,
): Promise<boolean> {
  for (const name of names) {
    const args = ['--deployment', deployments[name], '--json', '--skip-smoke', '--runtime-dir', runtimeDir];
    const run = await cli(['verify', '--dir', dir, ...args]);
    if (run.code === 0 && JSON.parse(run.stdout).ok === true) return true;
  }
  return false;
}

function tempFiles(dir: string): string[] {
  return filesUnder(dir).filter((file) => path.basename(file).includes(TEMP_MARKER));
}

/** Every file of the tree with its bytes, for "nothing was written" checks. */
function snapshot(dir: string): string {
  return filesUnder(dir)
    .map((file) => `${path.relative(dir, file)}:${fs.readFileSync(file).toString('base64')}`)
    .join('\n');
}

async function treeFacts(
  dir: string,
  names: readonly (keyof typeof deployments)[],
  runtimeDir = RUNTIME_DIR,
) {
  return {
    verified: await verifiesAgainstOne(dir, names, runtimeDir),
    temps: tempFiles(dir).length,
  };
}

/** The tree part of an observation. */
async function treeState(
  dir: string,
  names: readonly (keyof typeof deployments)[],
  runtimeDir = RUNTIME_DIR,
) {
  const { verified, temps } = await treeFacts(dir, names, runtimeDir);
  const verdict = verified
    ? 'verifies against one of the deployments'
    : `verifies against neither ${names.join(' nor ')}`;
  return `${verdict} · ${temps === 0 ? 'no temp file' : `${temps} temp file(s) left`}`;
}

/** Files whose bytes differ from their manifest.json entry (verify without a deployment). */
async function changedFiles(dir: string): Promise<string[]> {
  const run = await cli(['verify', '--dir', dir, '--json', '--skip-smoke']);
  const checks = JSON.parse(run.stdout).checks as { id: string; ok: boolean; file: string | null }[];
  return checks.filter((c) => c.id === 'files.sha256' && !c.ok).map((c) => c.file ?? '');
}

/** The last line of an error output without its paths (they differ from run to run). */
function withoutPaths(text: string): string {
  return lastLine(text)
    .replace(/'[^']*'/g, '…')
    .replace(/\/\S+/g, '…')
    .slice(0, 120);
}

/**
 * Starts the pausing render child; `paused` resolves once it paused (or ended without pausing).
 * `kill` reaches its whole process group, so a killed render can never resume (see spawnTsChild).
 */
function pausedRender(dir: string, deployment: string, pause: string) {
  const child = spawnTsChild(PAUSED_RENDER, [dir, deployment, RUNTIME_DIR, pause], env());
  let output = '';
  let onLine: () => void = () => {};
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    onLine();
  });
  child.stderr.resume();
  const kill = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid, 'SIGKILL');
    }
  };
  alive.add(kill);
  const ended = new Promise<string>((resolve) =>
    child.on('close', () => {
      alive.delete(kill);
      resolve(output);
    }),
  );
  const paused = new Promise<boolean>((resolve) => {
    onLine = () => {
      if (output.includes('paused ')) resolve(true);
    };
    void ended.then(() => resolve(false));
  });
  return {
    paused,
    ended,
    resume: () => child.stdin.end('continue\n'),
    kill,
  };
}

/** Kills a render child at an exact writer event; resolves after it is gone. */
async function killAt(dir: string, deployment: string, pause: string): Promise<string> {
  const child = pausedRender(dir, deployment, pause);
  const paused = await child.paused;
  child.kill();
  await child.ended;
  return paused ? pause.split(':')[0]! : 'not killed: the render never reached its kill point';
}

describe('concurrent renders into the same directory', () => {
  it.each([
    [SUBJECTS.different, 'different', 'D1', 'D2'],
    [SUBJECTS.same, 'same', 'D1', 'D1'],
  ] as const)(
    '%s',
    async (_name, subject, a, b) => {
      // Races differ from run to run: report the kinds of failure, not how often, so the table is stable.
      const problems = new Set<string>();
      for (let round = 1; round <= ROUNDS[subject]; round++) {
        const dir = freshDir();
        expect((await render(dir, deployments.D0)).code).toBe(0);
        // Large runtime files to stage: the two writes overlap for longer, as on a slow disk.
        const runs = await Promise.all([
          render(dir, deployments[a], bigRuntime),
          render(dir, deployments[b], bigRuntime),
        ]);
        for (const run of runs) {
          if (run.code !== 0 && run.code !== 1)
            problems.add(`a render exits ${run.code} (${withoutPaths(run.stderr)})`);
        }
        const tree = await treeFacts(dir, [...new Set([a, b])], bigRuntime);
        if (!tree.verified) problems.add('the tree verifies against neither deployment');
        if (tree.temps > 0) problems.add('temp files left');
      }
      const observed =
        problems.size === 0 ? EXPECTED[subject] : `in some rounds: ${[...problems].sort().join('; ')}`;
      section.check(subject, observed);
    },
    // Rounds of two concurrent renders of large runtimes, each verified: two minutes on a loaded machine.
    480_000,
  );

  it(SUBJECTS.interleaved, async () => {
    const dir = freshDir();
    expect((await render(dir, deployments.D0)).code).toBe(0);
    // By then the paused render has compared (and kept as unchanged) every file sorted before it.
    const first = pausedRender(dir, deployments.D2, 'stage:profiles/on-demand/external-context.json');
    expect(await first.paused).toBe(true);
    // The other render may finish, refuse, or wait for the first (a lock): give it 5 s, then resume the first.
    const second = render(dir, deployments.D1);
    await Promise.race([second, new Promise((r) => setTimeout(r, 5000))]);
    first.resume();
    const [firstOutput, secondRun] = await Promise.all([first.ended, second]);
    const problems: string[] = [];
    const error = /^error (.*)$/m.exec(firstOutput);
    if (error !== null) problems.push(`the paused render fails (${withoutPaths(error[1]!)})`);
    else if (!firstOutput.includes('done')) problems.push('the paused render never ends');
    if (secondRun.code !== 0 && secondRun.code !== 1) {
      problems.push(`qwen-managed render exits ${secondRun.code} (${withoutPaths(secondRun.stderr)})`);
    }
    const state = await treeState(dir, ['D1', 'D2']);
    const changed = await changedFiles(dir);
    const observed =
      problems.length === 0 && state === CONSISTENT
        ? EXPECTED.interleaved
        : [problems.length === 0 ? 'both renders exit 0' : problems.join(', '), state].join(' · ') +
          (changed.length > 0 ? ` (hash differs from manifest.json: ${changed.join(', ')})` : '');
    section.check('interleaved', observed);
  });
});

describe('renders killed mid-write, then rendered again', () => {
  it(SUBJECTS.killStaging, async () => {
    const dir = freshDir();
    expect((await render(dir, deployments.D0)).code).toBe(0);
    let killedWhileStaging = false;
    const killed = await render(dir, deployments.D0, bigRuntime, (child) => {
      const poll = setInterval(() => {
        if (tempFiles(dir).length > 0 && !fs.existsSync(path.join(dir, 'backups'))) {
          killedWhileStaging = true;
          child.kill('SIGKILL');
        }
        if (child.exitCode !== null || child.signalCode !== null || killedWhileStaging) clearInterval(poll);
      }, 2);
    });
    const kill =
      killedWhileStaging && killed.signal === 'SIGKILL' ? 'killed while staging' : 'not killed while staging';
    const again = await render(dir, deployments.D0, bigRuntime);
    const observed = `${kill} · re-render exits ${again.code} · ${await treeState(dir, ['D0'], bigRuntime)}`;
    section.check('killStaging', observed);
  }, 120_000);

  it(SUBJECTS.killReplacing, async () => {
    const dir = freshDir();
    expect((await render(dir, deployments.D0)).code).toBe(0);
    const kill = await killAt(dir, deployments.D1, 'replace:profiles/on-demand/system-settings.json');
    const again = await render(dir, deployments.D1);
    const observed = `killed while ${kill === 'replace' ? 'replacing' : kill} · re-render exits ${again.code} · ${await treeState(dir, ['D1'])}`;
    section.check('killReplacing', observed);
  });
});

describe('rollback after a killed render', () => {
  it.each([
    [SUBJECTS.rollbackStaging, 'rollbackStaging', 'D1', 'stage:profiles/on-demand/system-settings.json'],
    [SUBJECTS.rollbackOther, 'rollbackOther', 'D2', 'manifest:manifest.json'],
    [SUBJECTS.rollbackSame, 'rollbackSame', 'D1', 'manifest:manifest.json'],
  ] as const)(
    '%s',
    async (_name, subject, deployment, pause) => {
      const dir = freshDir();
      expect((await render(dir, deployments.D0)).code).toBe(0);
      const kill = await killAt(dir, deployments[deployment], pause);
      if (kill !== pause.split(':')[0]) {
        section.check(subject, kill);
        return;
      }
      const before = snapshot(dir);
      const run = await rollback(dir);
      let observed: string;
      if (run.code === 0) {
        const state = await treeState(dir, ['D0', deployment]);
        observed = state === CONSISTENT ? EXPECTED[subject] : `rollback exits 0 but the tree ${state}`;
      } else if (run.code === 1 && snapshot(dir) === before) {
        // A clean refusal: following its advice (re-render, then roll back) must give a verifiable tree.
        const again = await render(dir, deployments[deployment]);
        const retry = await rollback(dir);
        const state = await treeState(dir, [deployment]);
        observed =
          again.code === 0 && retry.code === 0 && state === CONSISTENT
            ? EXPECTED[subject]
            : `rollback refused; then re-render exits ${again.code}, rollback exits ${retry.code}, the tree ${state}`;
      } else {
        observed = `rollback exits ${run.code} (${withoutPaths(run.stderr)})${snapshot(dir) === before ? '' : ' after writing'}`;
      }
      section.check(subject, observed);
    },
    60_000,
  );
});

describe('rollback never vouches for bytes that render did not write', () => {
  it(SUBJECTS.adopted, async () => {
    const dir = freshDir();
    expect((await render(dir, deployments.D0)).code).toBe(0);
    fs.appendFileSync(path.join(dir, 'runtime', 'auto-recall.js'), '\n// changed after render\n');
    const before = snapshot(dir);
    const run = await rollback(dir, 'on-demand');
    let observed: string;
    if (run.code === 1 && snapshot(dir) === before) observed = EXPECTED.adopted;
    else {
      const flagged = (await changedFiles(dir)).includes('runtime/auto-recall.js');
      observed = flagged
        ? EXPECTED.adopted
        : `rollback exits ${run.code}; verify no longer flags runtime/auto-recall.js: its changed bytes were adopted into manifest.json`;
    }
    section.check('adopted', observed);
  }, 60_000);
});

it('nothing any of these programs printed contains a credential', () => {
  expect(printed.size).toBeGreaterThan(40);
  expect(scanTexts(printed, CREDENTIAL_NAMES)).toEqual([]);
});
