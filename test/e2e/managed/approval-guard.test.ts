// Scenario 7 — the approval guard (`managed-approval-guard`, PreToolUse `*`), through
// `launch-qwen --profile on-demand` as a non-root user: after Shift+Tab into YOLO or auto, a shell
// command the model requests is shown for confirmation, and declining it means it does not run.
// The control install renders `"approvalGuard": false`: the same YOLO call runs unasked, so the
// guard is what asks.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isToolContinuation, promptText, toolResults } from '../../fixtures/fake-model/inspect.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import { startGenericSearch } from '../../fixtures/fake-services/index.js';
import { INPUT_READY } from '../harness/scenario.js';
import { recordTiming } from './measure.js';
import type { ManagedSession } from './session.js';
import { managedSuite } from './suite.js';
import { genericSearchWorld, ManagedWorld } from './world.js';

const TOKEN = 'ctx-e2e-token-guard-19fe';
const GUARD_REASON = 'This deployment requires confirmation for every tool call, also in';
const YES = 'Yes, allow once';

/** The model answers a prompt containing `marker` with run_shell_command(touch file), then `answer`. */
function scriptTouch(world: ManagedWorld, marker: string, file: string, answer: string): void {
  world.model.setResponder(({ kind, body }) => {
    if (kind !== 'main') return undefined;
    if (isToolContinuation(body)) return text(answer);
    if (promptText(body).includes(marker)) {
      return toolCall('run_shell_command', { command: `touch ${file}`, description: 'Create a marker file' });
    }
    return text('UNEXPECTED-PROMPT');
  });
}

function guardHooks(settings: Record<string, unknown>): unknown[] {
  const hooks = (settings['hooks'] ?? {}) as Record<string, Array<{ hooks: Array<{ name?: string }> }>>;
  return Object.values(hooks)
    .flat()
    .flatMap((group) => group.hooks)
    .filter((hook) => hook.name === 'managed-approval-guard');
}

describe('approval guard: Shift+Tab into YOLO or auto still asks before a tool runs', () => {
  const suite = managedSuite(async (own) => {
    const search = own(await startGenericSearch({ token: TOKEN, documents: [] }));
    const guarded = own(await ManagedWorld.create(genericSearchWorld('guard', 'on-demand', search, TOKEN)));
    const unguarded = own(
      await ManagedWorld.create({
        ...genericSearchWorld('noguard', 'on-demand', search, TOKEN),
        approvalGuard: false,
      }),
    );
    return { guarded, unguarded };
  });

  async function start(world: ManagedWorld): Promise<ManagedSession> {
    const session = await suite.launch(world, 'on-demand');
    recordTiming('launch → input box (on-demand, approval-guard suite)', await session.waitForReady());
    return session;
  }

  for (const [mode, label] of [
    ['yolo', 'YOLO mode'],
    ['auto', 'Auto mode'],
  ] as const) {
    it(
      `${mode}: the shell call the model requests is shown for confirmation, and declining it means the command does not run`,
      suite.test(async ({ guarded: w }) => {
        expect(guardHooks(w.systemSettings('on-demand'))).toHaveLength(1);
        const s = await start(w);
        const marker = join(w.repo, `guard-${mode}.txt`);
        scriptTouch(w, `guard-${mode}`, marker, `ANSWER-GUARD-${mode}`);
        await s.cycleApprovalMode(label);
        const guardRunsBefore = w.hookRuns('approval-guard.js').length;
        await s.submit(`Please create the guard-${mode} marker file`);
        // The whole dialog: the guard's reason for this mode, then the choices (drawn a moment later).
        const dialog = await s.term.waitFor(
          new RegExp(`${GUARD_REASON} ${mode} mode\\. Tool: "run_shell_command"[\\s\\S]*${YES}`),
          30_000,
        );
        expect(dialog).toContain('Do you want to proceed?');
        expect(w.hookRuns('approval-guard.js').length - guardRunsBefore).toBe(1);
        await s.term.press('Escape');
        await s.term.waitFor(INPUT_READY, 15_000);
        // Still in the mode the user switched to: the guard asked in spite of it.
        await s.term.waitFor(`${label} (shift + tab to cycle)`, 5000);
        // The declined turn is over: a declined call never starts, nothing of it can come later.
        await s.waitForIdle();
        expect(existsSync(marker)).toBe(false);
        expect(w.bashLog().filter((line) => line.includes(`touch ${marker}`))).toEqual([]);
        expect(s.term.fullText()).not.toContain(`ANSWER-GUARD-${mode}`);
        expect(await s.quit()).toBe(0);
      }),
    );
  }

  it(
    'yolo: a shell call the provider pads past 1 MiB (the guard cannot read it) still asks, and declining it means it does not run',
    suite.test(async ({ guarded: w }) => {
      const s = await start(w);
      const marker = join(w.repo, 'guard-big.txt');
      // Measured before the fix: the guard answered `{}` to an event over its 1 MiB stdin limit, and
      // this call ran in YOLO with no confirmation.
      w.model.setResponder(({ kind, body }) => {
        if (kind !== 'main') return undefined;
        if (isToolContinuation(body)) return text('ANSWER-GUARD-BIG');
        return toolCall('run_shell_command', {
          command: `touch ${marker}`,
          description: 'd'.repeat(1024 * 1024),
        });
      });
      await s.cycleApprovalMode('YOLO mode');
      await s.submit('Please create the guard-big marker file');
      await s.term.waitFor(
        /This tool call is too large for the approval guard[\s\S]*Yes, allow once/,
        60_000,
      );
      await s.term.press('Escape');
      await s.waitForIdle();
      expect(existsSync(marker)).toBe(false);
      expect(s.term.fullText()).not.toContain('ANSWER-GUARD-BIG');
      expect(await s.quit()).toBe(0);
    }),
  );

  it(
    'control: with "approvalGuard": false the same YOLO shell call runs without a confirmation',
    suite.test(async ({ unguarded: w }) => {
      expect(guardHooks(w.systemSettings('on-demand'))).toEqual([]);
      const s = await start(w);
      const marker = join(w.repo, 'guard-off-yolo.txt');
      scriptTouch(w, 'guard-off-yolo', marker, 'ANSWER-GUARD-OFF-5c0');
      await s.cycleApprovalMode('YOLO mode');
      const enter = await s.submit('Please create the guard-off-yolo marker file');
      // No key is pressed: the turn completes on its own because nothing asks.
      await s.term.waitFor('ANSWER-GUARD-OFF-5c0', 30_000);
      expect(existsSync(marker)).toBe(true);
      // The shell tool's bash is in the instrument's log: the guarded tests' empty log is meaningful.
      expect(w.bashLog().filter((line) => line.includes(`touch ${marker}`)).length).toBeGreaterThanOrEqual(1);
      expect(s.term.fullText()).not.toContain(YES);
      expect(w.hookRuns('approval-guard.js')).toEqual([]);
      const continuation = await w.model.waitForRequest(
        (r) => r.kind === 'main' && r.receivedAt >= enter && isToolContinuation(r.chat!),
        10_000,
      );
      expect(toolResults(continuation.chat!).map((r) => r.name)).toEqual(['run_shell_command']);
      expect(await s.quit()).toBe(0);
    }),
  );
});
