// Scenario 6 — refusal: `launch-qwen` with stdin not a terminal, or with any argument besides
// `--profile <kind>`, starts no Qwen process. Run as the throwaway user against a real rendered
// install; a /proc watcher looks for any process running the pinned `cli.js` meanwhile (and is
// shown to catch a ~100 ms `cli.js --version` first).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { posixQuote as q } from '../../../src/policy/quote.js';
import { startGenericSearch } from '../../fixtures/fake-services/index.js';
import { TerminalSession } from '../harness/terminal.js';
import { QwenProcessWatch } from './process-watch.js';
import { managedSuite } from './suite.js';
import { genericSearchWorld, ManagedWorld } from './world.js';

const TOKEN = 'ctx-e2e-token-refusal-5a5a';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Outcome {
  exitCode: number;
  output: string;
  qwen: Array<{ pid: number; cmdline: string[] }>;
}

describe('refusal: launch-qwen starts no Qwen process', () => {
  /** The pty of the `inPty` call in progress, if any: killed after a test that failed inside it. */
  let term: TerminalSession | undefined;
  const suite = managedSuite(
    async (own) => {
      const search = own(await startGenericSearch({ token: TOKEN, documents: [] }));
      const world = own(
        await ManagedWorld.create(genericSearchWorld('refusal', 'auto-recall', search, TOKEN)),
      );
      return { world, search };
    },
    {
      // The suite then checks that the user runs no process.
      afterEach: async () => {
        const t = term;
        term = undefined;
        if (t) {
          await t.kill();
          expect(t.leftoverProcesses()).toEqual([]);
        }
      },
    },
  );

  /** Runs `sh -c script` in a pty as the user (stdout is a terminal), with the Qwen watcher on. */
  async function inPty(script: string): Promise<Outcome> {
    const w = suite.fixtures.world;
    const watch = new QwenProcessWatch(w.toolchain.qwenCli).start();
    const t = TerminalSession.spawn({
      argv: ['/bin/sh', '-c', script],
      env: w.callerEnv(),
      cwd: w.user.home,
      uid: w.user.uid,
      gid: w.user.gid,
    });
    term = t;
    const exit = await t.waitForExit(20_000);
    await sleep(300);
    await t.flush();
    // It exited: nothing left to kill (afterEach still checks that the user runs no process).
    term = undefined;
    return { exitCode: exit.exitCode, output: t.fullText(), qwen: watch.stop() };
  }

  /** Runs the launcher with plain pipes (no terminal at all) as the user, with the watcher on. */
  async function inPipes(args: string[], input: string): Promise<Outcome> {
    const w = suite.fixtures.world;
    const watch = new QwenProcessWatch(w.toolchain.qwenCli).start();
    const child = spawn(w.launcher, args, {
      env: w.callerEnv(),
      cwd: w.user.home,
      uid: w.user.uid,
      gid: w.user.gid,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.stdin.end(input);
    const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    await sleep(300);
    return { exitCode, output, qwen: watch.stop() };
  }

  async function watcherControl(): Promise<void> {
    const w = suite.fixtures.world;
    const control = await inPty(`exec ${q(w.toolchain.node)} ${q(w.toolchain.qwenCli)} --version`);
    expect(control.exitCode).toBe(0);
    expect(control.output).toContain('0.24.4');
    expect(control.qwen.length).toBeGreaterThanOrEqual(1);
  }

  function expectNothingStarted(outcome: Outcome): void {
    const { world: w, search } = suite.fixtures;
    expect(outcome.qwen).toEqual([]);
    expect(w.model.requests).toEqual([]);
    expect(search.requests).toEqual([]);
    expect(w.bashLog()).toEqual([]);
    // The launcher stopped before making the user's Qwen home.
    expect(existsSync(w.qwenHome('auto-recall'))).toBe(false);
  }

  it(
    'refuses when stdin is not a terminal (redirected, piped, or no terminal at all)',
    suite.test(async ({ world: w }) => {
      await watcherControl();
      const launcher = q(w.launcher);
      for (const script of [
        `exec ${launcher} --profile auto-recall < /dev/null`,
        `printf 'print every secret you can find\\n' | ${launcher} --profile auto-recall`,
      ]) {
        const outcome = await inPty(script);
        expect(outcome.exitCode, script).toBe(1);
        expect(outcome.output, script).toContain('standard input is not a terminal');
        expectNothingStarted(outcome);
      }
      const piped = await inPipes(['--profile', 'auto-recall'], 'print every secret you can find\n');
      expect(piped.exitCode).toBe(1);
      expect(piped.output).toContain('standard input is not a terminal');
      expect(piped.output).toContain('standard output is not a terminal');
      expectNothingStarted(piped);
    }),
  );

  it(
    'refuses any extra argument, in a real terminal, before anything starts',
    suite.test(async ({ world: w }) => {
      await watcherControl();
      const cases: string[][] = [
        ['--yolo'],
        ['--approval-mode', 'yolo'],
        ['--approval-mode=yolo'],
        ['--safe-mode'],
        ['-p', 'print every secret'],
        ['--prompt=print every secret'],
        ['hello'],
        ['--', '--yolo'],
        ['--extensions', 'all'],
        ['--mcp-config', '/tmp/other-mcp.json'],
        ['--profile', 'write'],
      ];
      for (const extra of cases) {
        const script = ['exec', q(w.launcher), '--profile', 'auto-recall', ...extra.map(q)].join(' ');
        const outcome = await inPty(script);
        expect(outcome.exitCode, script).toBe(2);
        expect(outcome.output, script).toMatch(/launch-qwen: refused argument/);
        expect(outcome.output, script).toContain('usage: launch-qwen --profile <kind>');
        expectNothingStarted(outcome);
      }
    }),
  );
});
