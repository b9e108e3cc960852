// A provider whose DNS never answers, against the real Qwen 0.24.4 running the BUILT auto-recall hook.
// The hook runs in its own mount namespace whose /etc/resolv.conf names a loopback resolver that
// reads every query and answers none, so getaddrinfo for the provider's host name blocks a libuv
// threadpool thread for the resolver's whole timeout (about 10 s here), and nothing cancels it.
// process.exit() waits for that thread: the hook wrote `{}` at its provider timeout and then stayed
// alive past Qwen's 8 s hook timeout, and Qwen waits for the hook to close before the model request.
// Now the hook ends itself once its answer is written when a lookup is still in flight.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_BUDGET_MS, HOOK_TIMEOUT_MS } from '../../src/base/limits.js';
import { posixQuote } from '../../src/policy/quote.js';
import { type BlackHoleResolver, startBlackHoleResolver } from '../fixtures/black-hole-resolver.js';
import { hookContextParts, promptText } from '../fixtures/fake-model/inspect.js';
import { text } from '../fixtures/fake-model/server.js';
import { hookEntry } from './harness/hooks.js';
import { ensureE2eToolchain, node22, repoRoot } from './harness/paths.js';
import { managedBaseline } from './harness/qwen-home.js';
import { INPUT_READY, QwenScenario } from './harness/scenario.js';

const PROVIDER_TIMEOUT_MS = 1500;
const HOOK = join(repoRoot, 'dist', 'runtime', 'auto-recall.js');

/** A shell command running `argv` with the black hole as /etc/resolv.conf, in its own mount namespace. */
function withResolver(resolver: BlackHoleResolver, argv: string[]): string {
  return ['exec', 'unshare', ...resolver.unshareArgs(argv).map(posixQuote)].join(' ');
}

const namespacesUnavailable = (): string | undefined => {
  if (process.getuid?.() !== 0) return 'not root (the hook needs its own mount namespace)';
  const probe = spawnSync('unshare', ['-m', 'true'], { stdio: 'ignore' });
  return probe.status === 0 ? undefined : 'unshare -m failed here';
};

describe('a provider whose DNS never answers: the prompt goes on at the provider timeout', {
  timeout: 180_000,
}, () => {
  let dir: string;
  let resolver: BlackHoleResolver;
  let scenario: QwenScenario | undefined;

  beforeAll(async () => {
    const reason = namespacesUnavailable();
    if (reason !== undefined) throw new Error(`this suite needs a mount namespace: ${reason}`);
    ensureE2eToolchain();
    dir = mkdtempSync(join(tmpdir(), 'qm-dns-black-hole-'));
    resolver = await startBlackHoleResolver(dir);
  }, 600_000);

  afterEach(async () => {
    await scenario?.dispose();
    scenario = undefined;
  });

  afterAll(() => {
    resolver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Qwen with the auto-recall hook (run through `hookArgv`) on a provider at https://<name>; Enter → model request. */
  async function promptDelay(hookArgv: string[], marker: string): Promise<{ added: number; chat: string[] }> {
    const config = join(dir, `${marker}.json`);
    scenario = await QwenScenario.start({
      systemSettings: {
        ...managedBaseline(),
        hooks: {
          UserPromptSubmit: [
            hookEntry(withResolver(resolver, hookArgv), { timeout: HOOK_TIMEOUT_MS / 1000 }),
          ],
        },
      },
      env: { QWEN_EXTERNAL_CONTEXT_CONFIG: config, CONTEXT_API_TOKEN: 'dns-black-hole-token' },
      prepare: ({ workspace }) => {
        writeFileSync(
          config,
          JSON.stringify({
            version: 2,
            autoRecall: { repositoryRoot: workspace, timeoutMs: PROVIDER_TIMEOUT_MS },
            provider: {
              type: 'generic-http-search-v1',
              baseUrl: 'https://provider.dns-black-hole.example',
              tokenEnv: 'CONTEXT_API_TOKEN',
            },
          }),
          { mode: 0o644 },
        );
      },
    });
    const s = scenario;
    await s.waitForReady(60_000);
    s.model.enqueue(text(marker));
    const before = resolver.queries.length;
    await s.submit('How does deployment work?');
    const enter = Date.now();
    const request = await s.model.waitForRequest((r) => r.kind === 'main', 60_000);
    await s.term.waitFor(marker, 30_000);
    await s.term.waitFor(INPUT_READY, 10_000);
    // The hook did ask the black hole: the lookup was in flight when the hook answered.
    expect(resolver.queries.length).toBeGreaterThan(before);
    expect(promptText(request.chat!)).toBe('How does deployment work?');
    expect(await s.quit()).toBe(0);
    return { added: request.receivedAt - enter, chat: hookContextParts(request.chat!) };
  }

  it('the built hook: no context, and the model request within the hook budget', async () => {
    const { added, chat } = await promptDelay([node22, HOOK], 'ANSWER-DNS-HOOK-51c');
    expect(chat).toEqual([]);
    expect(added).toBeLessThan(HOOK_BUDGET_MS);
  });

  it('negative control: a hook that answers `{}` at the provider timeout and then process.exit(0)s, as the hook did, holds the prompt past Qwen’s hook timeout', async () => {
    const control = join(dir, 'exit-after-lookup.cjs');
    writeFileSync(
      control,
      [
        "const socket = require('node:net').connect({ host: 'provider.dns-black-hole.example', port: 443 });",
        "socket.on('error', () => {});",
        `setTimeout(() => { socket.destroy(); require('node:fs').writeSync(1, '{}'); process.exit(0); }, ${PROVIDER_TIMEOUT_MS});`,
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const { added, chat } = await promptDelay([node22, control], 'ANSWER-DNS-CONTROL-9e0');
    expect(chat).toEqual([]);
    expect(added).toBeGreaterThan(HOOK_BUDGET_MS);
  });
});
