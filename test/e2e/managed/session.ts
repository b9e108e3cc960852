// A developer's session: `<installDir>/bin/launch-qwen --profile <kind>` typed in a real
// pseudo-terminal, as the world's throwaway user, from their home directory (or another one), with a login-shell
// environment. The launcher execs Qwen in place (same pid), so the pty's process is Qwen.
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { computeEnv } from '../../../launcher/env.js';
import type { ProfileKind } from '../../../src/contracts/launch-plan.js';
import { ENVIRONMENT_POLICY } from '../../../src/policy/policies.js';
import type { RecordedRequest } from '../../fixtures/fake-model/server.js';
import type { ProcInfo } from '../harness/processes.js';
import { INPUT_READY, QUIT_HANG_MS, quitQwen } from '../harness/scenario.js';
import { TerminalSession } from '../harness/terminal.js';
import type { ManagedWorld } from './world.js';

export interface LaunchOptions {
  /** Extra caller environment (wins over the login-shell defaults). */
  env?: Record<string, string>;
  /** Where the developer types `launch-qwen` (default: their home directory). */
  cwd?: string;
}

export interface DirectOptions {
  /** The credential values, by variable name, the launcher would have read from their files. */
  credentials: Record<string, string>;
  env?: Record<string, string>;
  /** Replaces pinned-file variables (e.g. settings without a defence, for a negative control). */
  pinned?: Record<string, string>;
}

/**
 * A hang bound, never a speed limit: how long the processes a session started (hooks, the MCP
 * server) may take to go after Qwen exited. On a healthy machine they are gone at once.
 */
export const AFTERLIFE_HANG_MS = 30_000;

/** Qwen's first choice in every confirmation dialog: the dialog is drawn in full once it shows. */
export const CONFIRM = 'Yes, allow once';

/** What the repository guard added to Qwen's environment, left out of a `direct` start. */
const WITHOUT_THE_GUARD = new Set(['SHELLOPTS', 'PS4', 'QWEN_RUNTIME_DIR']);

/** The footer naming the approval mode: `YOLO mode (shift + tab to cycle)`, `⏸ Ask permissions (…)`. */
const MODE_FOOTER = /^[^\p{L}\n]*(\p{L}.*?) \(shift \+ tab to cycle\)/mu;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ManagedSession {
  private constructor(
    readonly world: ManagedWorld,
    readonly kind: ProfileKind,
    readonly term: TerminalSession,
  ) {}

  /** Starts the launcher; the world's bash log is emptied first, so it records this session only. */
  static launch(world: ManagedWorld, kind: ProfileKind, options: LaunchOptions = {}): ManagedSession {
    world.resetBashLog();
    const term = TerminalSession.spawn({
      argv: [world.launcher, '--profile', kind],
      env: world.callerEnv(options.env),
      cwd: options.cwd ?? world.user.home,
      uid: world.user.uid,
      gid: world.user.gid,
      cols: 120,
      rows: 50,
    });
    return new ManagedSession(world, kind, term);
  }

  /**
   * Qwen started WITHOUT the launcher (the negative controls): the pinned node and cli.js with the
   * managed argv, settings files, provider config and credentials — what a launch gave Qwen before the
   * repository guard — but none of the guard: no launch defaults layer (the admin's system defaults,
   * so no advanced.excludedEnvVars), no pinned SHELLOPTS, PS4 or QWEN_RUNTIME_DIR, no refusal.
   */
  static direct(world: ManagedWorld, kind: ProfileKind, options: DirectOptions): ManagedSession {
    world.resetBashLog();
    const plan = world.launchPlan(kind);
    const qwenHome = world.qwenHome(kind);
    for (let dir = qwenHome, made: string[] = []; ; dir = dirname(dir)) {
      if (existsSync(dir)) {
        for (const d of made.reverse()) {
          mkdirSync(d, { mode: 0o700 });
          chownSync(d, world.user.uid, world.user.gid);
        }
        break;
      }
      made.push(dir);
    }
    const env: Record<string, string> = {};
    for (const entry of computeEnv(world.callerEnv(options.env), plan, ENVIRONMENT_POLICY, {
      home: world.user.home,
      qwenHome,
      credentials: options.credentials,
      platform: 'posix',
      externalContextActive: true,
    }).entries) {
      if (!WITHOUT_THE_GUARD.has(entry.name)) env[entry.name] = entry.value;
    }
    Object.assign(env, options.pinned);
    const term = TerminalSession.spawn({
      argv: [plan.node, plan.qwenCli, ...plan.argv, ...plan.externalContext.argv],
      env,
      cwd: plan.cwd,
      uid: world.user.uid,
      gid: world.user.gid,
      cols: 120,
      rows: 50,
    });
    return new ManagedSession(world, kind, term);
  }

  /** Waits for the input box; returns ms since the launcher was spawned. */
  async waitForReady(timeoutMs = 60_000): Promise<number> {
    await this.term.waitFor(INPUT_READY, timeoutMs);
    return Date.now() - this.term.startedAt;
  }

  /**
   * Waits until the turn is over: the input box is on screen and neither the busy spinner
   * (`esc to cancel`) nor the busy footer (`Enter to steer`) is, twice in a row 100 ms apart. Text
   * typed while Qwen is busy becomes a steer message, which skips UserPromptSubmit.
   */
  async waitForIdle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let idleSince: number | undefined;
    for (;;) {
      await this.term.flush();
      const screen = this.term.screen();
      const idle = screen.includes(INPUT_READY) && !/esc to cancel|Enter to steer/.test(screen);
      if (!idle) idleSince = undefined;
      else if (idleSince === undefined) idleSince = Date.now();
      else if (Date.now() - idleSince >= 100) return;
      if (Date.now() > deadline) throw this.term.failure(`Qwen still busy after ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  /** Waits for an idle input box, types like a person, pauses, presses Enter; resolves with the time Enter was sent. */
  async submit(prompt: string): Promise<number> {
    await this.waitForIdle();
    await this.term.type(prompt);
    await sleep(200);
    const enteredAt = Date.now();
    await this.term.press('Enter');
    return enteredAt;
  }

  /** The launcher's `launch-qwen: ` lines without that prefix, each path of `names` written as its name. */
  launcherLines(names: Readonly<Record<string, string>>): string[] {
    return this.term
      .rawOutput()
      .replaceAll('\r\n', '\n')
      .split('\n')
      .filter((l) => l.startsWith('launch-qwen: '))
      .map((l) =>
        Object.entries(names).reduce(
          (line, [path, name]) => line.replaceAll(path, name),
          l.slice('launch-qwen: '.length),
        ),
      );
  }

  /**
   * After a prompt that makes the model call a tool: whether the turn ran on to `answer` with no
   * dialog, or stopped at a confirmation (then declined with Escape), or neither within 30 s. The
   * turn is over when it resolves (`waitForIdle`), so nothing of the call can still run.
   */
  async ranOrAsked(answer: string): Promise<'ran' | 'asked' | 'timeout'> {
    const shown = await Promise.race([
      this.term.waitFor(answer, 30_000).then(
        () => 'ran' as const,
        () => 'timeout' as const,
      ),
      this.term.waitFor(CONFIRM, 30_000).then(
        () => 'asked' as const,
        () => 'timeout' as const,
      ),
    ]);
    if (shown === 'asked') await this.term.press('Escape');
    if (shown !== 'timeout') await this.waitForIdle();
    return shown;
  }

  /**
   * Declines the confirmation as the developer does, the end of every "asks first" row: waits for
   * `dialog` (what the dialog must say; any confirmation when absent) followed by its choices,
   * presses Escape, and waits for the turn to end — after which nothing of the declined call can
   * still run (a fixed pause after Escape would decide by speed). Resolves with the dialog's screen.
   */
  async decline(dialog?: RegExp, hangMs = 30_000): Promise<string> {
    await this.term.waitFor(
      dialog === undefined ? CONFIRM : new RegExp(`${dialog.source}[\\s\\S]*${CONFIRM}`, dialog.flags),
      hangMs,
    );
    const screen = this.term.screen();
    await this.term.press('Escape');
    await this.waitForIdle(hangMs);
    return screen;
  }

  /** The next main model request after `since` (a timestamp). */
  nextMainRequest(since: number, timeoutMs = 30_000): Promise<RecordedRequest> {
    return this.world.model.waitForRequest((r) => r.kind === 'main' && r.receivedAt >= since, timeoutMs);
  }

  /** Presses Shift+Tab until the footer shows `label` (e.g. `YOLO mode`). */
  async cycleApprovalMode(label: string, maxPresses = 6): Promise<void> {
    await this.waitForIdle();
    let shown = await this.modeShown();
    for (let presses = 0; shown !== label; presses++) {
      if (presses === maxPresses) {
        throw this.term.failure(`approval mode ${label} not reached in ${maxPresses} Shift+Tab presses`);
      }
      await this.term.press('ShiftTab');
      // One press, one mode: wait until the footer names another mode before the next press, or a
      // late redraw (a loaded machine) lets the presses overshoot the mode wanted.
      shown = await this.modeShown(shown);
    }
  }

  /** The approval mode the footer names once it names one other than `previous` (30 s at most). */
  private async modeShown(previous?: string): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      await this.term.flush();
      const shown = MODE_FOOTER.exec(this.term.screen())?.[1];
      if (shown !== undefined && shown !== previous) return shown;
      if (Date.now() > deadline) {
        throw this.term.failure(`the footer never named an approval mode other than ${previous ?? '(none)'}`);
      }
      await sleep(50);
    }
  }

  /**
   * Ends the session as a developer does: waits for the turn to end, then `/quit` (quitQwen).
   * Resolves with Qwen's exit code; throws (with the screen) when Qwen stays busy or running past
   * QUIT_HANG_MS, or ends by a signal.
   */
  async quit(): Promise<number> {
    if (!this.term.exited) await this.waitForIdle(QUIT_HANG_MS);
    return quitQwen(this.term);
  }

  /** Processes of this session still alive: by the run marker, and every process of the user. */
  leftovers(): Array<ProcInfo | { pid: number; comm: string }> {
    const byMarker = this.term.leftoverProcesses();
    const seen = new Set(byMarker.map((p) => p.pid));
    return [...byMarker, ...this.world.userProcesses().filter((p) => !seen.has(p.pid))];
  }

  /**
   * Ends the session and returns the processes that outlived Qwen: after Qwen exited, whatever is
   * still alive AFTERLIFE_HANG_MS later (hooks, MCP server, anything they started; the wait ends as
   * soon as none is); then kills everything left.
   */
  async close(graceMs = AFTERLIFE_HANG_MS): Promise<Array<ProcInfo | { pid: number; comm: string }>> {
    let survivors: Array<ProcInfo | { pid: number; comm: string }> = [];
    if (this.term.exited) {
      const deadline = Date.now() + graceMs;
      survivors = this.leftovers();
      while (survivors.length > 0 && Date.now() < deadline) {
        await sleep(100);
        survivors = this.leftovers();
      }
    }
    await this.term.kill();
    const afterKill = this.leftovers();
    return [...survivors, ...afterKill.filter((p) => !survivors.some((q) => q.pid === p.pid))];
  }
}
