// The smoke on every supported Qwen version (policies/qwen/versions.json), each installed from the
// registry by its own lockfile (scripts/e2e/qwen-versions/) and rendered for real: verify passes on
// the install (the launcher's own host checks, the version accepted), the auto-recall hook fires
// once per prompt and its context reaches the model, and the approval guard asks in YOLO mode.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_TIMEOUT_MS, SECURITY_HOOK_TIMEOUT_MS } from '../../../src/base/limits.js';
import { qwenVersionFacts, SUPPORTED_QWEN_VERSIONS } from '../../../src/qwen/versions.js';
import {
  contentParts,
  HOOK_CONTEXT_OPEN,
  hookContextParts,
  isToolContinuation,
  lastUserMessage,
  promptText,
} from '../../fixtures/fake-model/inspect.js';
import { text, toolCall } from '../../fixtures/fake-model/server.js';
import { startGenericSearch } from '../../fixtures/fake-services/index.js';
import { INPUT_READY } from '../harness/scenario.js';
import { managedSuite } from './suite.js';
import { qwenCliOf } from './toolchain.js';
import { genericSearchWorld, ManagedWorld } from './world.js';

const TOKEN = 'ctx-e2e-token-versions-3e7a';
const GUARD_REASON = 'This deployment requires confirmation for every tool call, also in yolo mode.';
const DOCUMENTS = [
  { id: 'kb-versions', content: 'KB-VERSIONS-5521: every supported Qwen gets the context.' },
];

describe.each(SUPPORTED_QWEN_VERSIONS)('Qwen %s', (version) => {
  const suite = managedSuite(async (own) => {
    const qwenCli = qwenCliOf(version);
    const search = own(await startGenericSearch({ token: TOKEN, documents: DOCUMENTS }));
    const tag = version.replaceAll('.', '');
    const recall = own(
      await ManagedWorld.create({
        ...genericSearchWorld(`v${tag}-recall`, 'auto-recall', search, TOKEN),
        qwenCli,
      }),
    );
    const guarded = own(
      await ManagedWorld.create({
        ...genericSearchWorld(`v${tag}-guard`, 'on-demand', search, TOKEN),
        qwenCli,
      }),
    );
    return { recall, guarded, search };
  });

  it("the package's engines.node is the nodeEngines fact of policies/qwen/versions.json", () => {
    const pkg = JSON.parse(readFileSync(join(dirname(qwenCliOf(version)), 'package.json'), 'utf8'));
    expect(pkg.engines?.node).toBe(qwenVersionFacts(version)!.nodeEngines);
  });

  it('verify passes on the real install: the launcher checks hold and the version is supported', () => {
    const { recall } = suite.fixtures;
    const { ok, report } = recall.verify();
    const failed = report.checks.filter((c) => c.ok === false && c.severity === 'error');
    expect([ok, failed]).toEqual([true, []]);
    expect(report.checks.filter((c) => c.id === 'host.install').map((c) => c.ok)).toEqual([true]);
    // The managed settings judged by this package's own settings table, which knows every one of them.
    expect(report.checks.filter((c) => c.id === 'settings.qwen').map((c) => [c.ok, c.message])).toEqual([
      [true, `every setting is one the Qwen ${version} pinned here knows`],
    ]);
    // The hook timeout is rendered in the unit this Qwen reads (seconds), not the legacy ms form:
    // the recall hook's 8 s, the approval guard's 60 s (SECURITY_HOOK_TIMEOUT_MS).
    const hooks = (recall.systemSettings('auto-recall')['hooks'] ?? {}) as Record<
      string,
      Array<{ hooks: Array<{ timeout?: unknown }> }>
    >;
    const timeouts = Object.fromEntries(
      Object.entries(hooks).map(([event, groups]) => [
        event,
        groups.flatMap((g) => g.hooks.map((h) => h.timeout)),
      ]),
    );
    expect(timeouts).toEqual({
      UserPromptSubmit: [HOOK_TIMEOUT_MS / 1000],
      PreToolUse: [SECURITY_HOOK_TIMEOUT_MS / 1000],
    });
  });

  it(
    'auto-recall: the hook fires once per prompt and its context reaches the model',
    suite.test(async ({ recall: w, search }) => {
      const s = await suite.launch(w, 'auto-recall');
      await s.waitForReady();
      w.model.enqueue(text(`ANSWER-RECALL-${version}`));
      const before = search.requests.length;
      const enter = await s.submit('Which Qwen versions get the context?');
      const request = await s.nextMainRequest(enter);
      await s.term.waitFor(`ANSWER-RECALL-${version}`, 30_000);
      expect(search.requests.slice(before).map((r) => r.body)).toEqual([
        { query: 'Which Qwen versions get the context?', limit: 5 },
      ]);
      expect(w.hookRuns('auto-recall.js')).toHaveLength(1);
      // The context is in this prompt's user message, after the typed text.
      const parts = contentParts(lastUserMessage(request.chat!)?.content);
      const contexts = parts.filter((p) => p.startsWith(HOOK_CONTEXT_OPEN));
      expect(hookContextParts(request.chat!)).toHaveLength(1);
      expect(contexts).toEqual([expect.stringContaining('KB-VERSIONS-5521')]);
      expect(await s.quit()).toBe(0);
    }),
  );

  it(
    'approval guard: in YOLO mode the shell call the model requests is asked for, and declining it means it does not run',
    suite.test(async ({ guarded: w }) => {
      const marker = join(w.repo, 'guard-version.txt');
      w.model.setResponder(({ kind, body }) => {
        if (kind !== 'main') return undefined;
        if (isToolContinuation(body)) return text('ANSWER-GUARD-RAN');
        if (promptText(body).includes('guard-version')) {
          return toolCall('run_shell_command', {
            command: `touch ${marker}`,
            description: 'Create a marker file',
          });
        }
        return text('UNEXPECTED-PROMPT');
      });
      const s = await suite.launch(w, 'on-demand');
      await s.waitForReady();
      await s.cycleApprovalMode('YOLO mode');
      await s.submit('Please create the guard-version marker file');
      const dialog = await s.term.waitFor(
        new RegExp(
          `${GUARD_REASON.replaceAll('.', '\\.')} Tool: "run_shell_command"[\\s\\S]*Yes, allow once`,
        ),
        30_000,
      );
      expect(dialog).toContain('Do you want to proceed?');
      await s.term.press('Escape');
      await s.term.waitFor(INPUT_READY, 15_000);
      expect(existsSync(marker)).toBe(false);
      expect(w.bashLog().filter((line) => line.includes(`touch ${marker}`))).toEqual([]);
      expect(s.term.fullText()).not.toContain('ANSWER-GUARD-RAN');
      expect(await s.quit()).toBe(0);
    }),
  );
});
