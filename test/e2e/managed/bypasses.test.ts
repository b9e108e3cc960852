// Scenario 4 — bypasses closed, through `launch-qwen --profile auto-recall` as a non-root user: the
// repository carries a project `.env` (and `.qwen/.env`) with `QWEN_CODE_SAFE_MODE=1`, a workspace
// `.qwen/settings.json` with `disableAllHooks: true`, and the developer's shell exports
// `QWEN_CODE_RELAUNCH_ARGS` (safe mode + a headless prompt), `NODE_OPTIONS` (a preload) and
// `QWEN_CODE_SAFE_MODE=1`. Qwen still starts interactive, the managed hook still runs.
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookContextParts } from '../../fixtures/fake-model/inspect.js';
import { text } from '../../fixtures/fake-model/server.js';
import { startGenericSearch } from '../../fixtures/fake-services/index.js';
import { recordTiming } from './measure.js';
import { managedSuite } from './suite.js';
import { genericSearchWorld, ManagedWorld } from './world.js';

const TOKEN = 'ctx-e2e-token-bypass-0d0d';
const RELAUNCH_PROMPT = 'RELAUNCH-HEADLESS-PROMPT-e9';

function environOf(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

describe('bypasses closed: launch-qwen --profile auto-recall with hostile project files and caller environment', () => {
  const suite = managedSuite(async (own) => {
    const search = own(
      await startGenericSearch({
        token: TOKEN,
        documents: [
          { id: 'kb-hooks', content: 'KB-HOOKS-6612: managed hooks always run in this deployment.' },
        ],
      }),
    );
    const world = own(await ManagedWorld.create(genericSearchWorld('bypass', 'auto-recall', search, TOKEN)));
    return { world, search };
  });

  it(
    'a project .env with QWEN_CODE_SAFE_MODE=1, workspace disableAllHooks: true, QWEN_CODE_RELAUNCH_ARGS and NODE_OPTIONS: the hook still runs and Qwen starts interactive',
    suite.test(async ({ world: w, search }) => {
      const owner = (path: string): void => chownSync(path, w.user.uid, w.user.gid);
      // The developer's repository, as a hostile project would ship it.
      writeFileSync(join(w.repo, '.env'), 'QWEN_CODE_SAFE_MODE=1\nQWEN_CODE_SIMPLE=1\n');
      mkdirSync(join(w.repo, '.qwen'));
      writeFileSync(join(w.repo, '.qwen', '.env'), 'QWEN_CODE_SAFE_MODE=1\n');
      writeFileSync(join(w.repo, '.qwen', 'settings.json'), '{"$version":4,"disableAllHooks":true}\n');
      for (const p of ['.env', '.qwen', '.qwen/.env', '.qwen/settings.json']) owner(join(w.repo, p));
      // A preload in the caller's NODE_OPTIONS records every Node process that loads it.
      const preloadLog = join(w.logDir, 'preload.log');
      const preload = join(w.logDir, 'preload.cjs');
      writeFileSync(
        preload,
        `require('node:fs').appendFileSync(${JSON.stringify(preloadLog)}, JSON.stringify({ pid: process.pid, argv: process.argv }) + '\\n');\n`,
      );
      owner(preload);

      const s = await suite.launch(w, 'auto-recall', {
        env: {
          QWEN_CODE_RELAUNCH_ARGS: JSON.stringify(['--safe-mode', '--prompt', RELAUNCH_PROMPT]),
          NODE_OPTIONS: `--require ${preload}`,
          QWEN_CODE_SAFE_MODE: '1',
        },
      });
      recordTiming('launch → input box (auto-recall, bypass attempts)', await s.waitForReady());
      await s.term.waitFor('Ask permissions (shift + tab to cycle)', 5000);
      expect(s.term.fullText()).not.toMatch(/safe mode/i);

      // Qwen is the pty's process (the launcher exec'd it) and got none of the caller's overrides.
      const qwenCmdline = readFileSync(`/proc/${s.term.pid}/cmdline`, 'utf8').split('\0');
      expect(qwenCmdline).toContain(w.toolchain.qwenCli);
      expect(qwenCmdline).not.toContain('--safe-mode');
      const qwenEnv = environOf(s.term.pid);
      expect(qwenEnv['QWEN_CODE_SAFE_MODE']).toBe('0');
      expect(qwenEnv['QWEN_CODE_SIMPLE']).toBe('0');
      expect(qwenEnv).not.toHaveProperty('NODE_OPTIONS');
      expect(qwenEnv).not.toHaveProperty('QWEN_CODE_RELAUNCH_ARGS');

      w.model.enqueue(text('ANSWER-BYPASS-CLOSED-31c'));
      const enter = await s.submit('Do managed hooks always run here?');
      const request = await s.nextMainRequest(enter);
      await s.term.waitFor('ANSWER-BYPASS-CLOSED-31c', 30_000);
      expect(w.hookRuns('auto-recall.js')).toHaveLength(1);
      expect(search.requests.map((r) => r.body)).toEqual([
        { query: 'Do managed hooks always run here?', limit: 5 },
      ]);
      expect(hookContextParts(request.chat!)).toHaveLength(1);
      expect(hookContextParts(request.chat!)[0]).toContain('KB-HOOKS-6612');
      // Interactive, not the headless prompt the relaunch variable asked for.
      expect(JSON.stringify(w.model.requests.map((r) => r.rawBody))).not.toContain(RELAUNCH_PROMPT);

      // No process of the session loaded the caller's preload: not Qwen, not the hook.
      const loaded = existsSync(preloadLog)
        ? readFileSync(preloadLog, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { pid: number; argv: string[] })
        : [];
      console.log(`[e2e] processes that loaded the caller's NODE_OPTIONS preload: ${JSON.stringify(loaded)}`);
      const sessionLoads = loaded.filter((l) =>
        l.argv.some(
          (a) => a === w.toolchain.qwenCli || a.startsWith(join(w.installDir, 'runtime', 'auto-recall')),
        ),
      );
      expect(sessionLoads).toEqual([]);
      expect(await s.quit()).toBe(0);
      for (const p of ['.env', '.qwen']) rmSync(join(w.repo, p), { recursive: true, force: true });
    }),
  );
});
