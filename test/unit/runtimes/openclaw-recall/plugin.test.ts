// The plugin's handler around the shared core: the config file it names, its own budget, the
// lifetime check, and silence on every failure (the core itself: recall-hosts.test.ts).
import { describe, expect, it } from 'vitest';
import { configFileOf, createHandler } from '../../../../src/runtimes/openclaw-recall/plugin.js';

function turn(runId: string, active: { value: boolean } = { value: true }) {
  return {
    event: { prompt: 'How should deployment work?', messages: [] },
    ctx: {
      runId,
      trigger: 'user',
      workspaceDir: '/repo',
      toolAuthority: {
        allows: () => active.value,
        assertActive: () => {
          if (!active.value) throw new Error('inactive');
        },
      },
    },
  };
}

describe('configFileOf', () => {
  it.each([
    [
      { configFile: '/opt/qm/profiles/openclaw-recall/external-context.json' },
      '/opt/qm/profiles/openclaw-recall/external-context.json',
    ],
    [{}, undefined],
    [{ configFile: '' }, undefined],
    [{ configFile: 3 }, undefined],
    [undefined, undefined],
  ])('%j → %s', (config, file) => {
    expect(configFileOf(config)).toBe(file);
  });
});

describe('createHandler', () => {
  it('hands the core the user text, the workspace and the config path in the environment; returns its envelope', async () => {
    const calls: unknown[] = [];
    const handler = createHandler('/cfg.json', {
      env: { CONTEXT_API_TOKEN: 't' },
      recall: async (input) => {
        calls.push(input);
        return { query: 'q', envelope: '{"untrusted_external_context":{}}' };
      },
    });
    const { event, ctx } = turn('r1');
    await expect(handler(event, ctx)).resolves.toEqual({
      prependContext: '{"untrusted_external_context":{}}',
    });
    expect(calls).toEqual([
      {
        message: 'How should deployment work?',
        cwd: '/repo',
        env: { CONTEXT_API_TOKEN: 't', QWEN_EXTERNAL_CONTEXT_CONFIG: '/cfg.json' },
      },
    ]);
  });

  it('a core that never answers: nothing, once the plugin budget runs out', async () => {
    const handler = createHandler('/cfg.json', {
      env: {},
      budgetMs: 50,
      recall: () => new Promise(() => {}),
    });
    const { event, ctx } = turn('r2');
    await expect(handler(event, ctx)).resolves.toBeUndefined();
  });

  it('an answer after OpenClaw stopped waiting (assertActive throws): nothing', async () => {
    const active = { value: true };
    const handler = createHandler('/cfg.json', {
      env: {},
      recall: async () => {
        active.value = false;
        return { query: 'q', envelope: 'stale' };
      },
    });
    const { event, ctx } = turn('r3', active);
    await expect(handler(event, ctx)).resolves.toBeUndefined();
  });

  it.each([
    ['no config file', undefined, async () => ({ query: 'q', envelope: 'e' })],
    ['a core that throws', '/cfg.json', async () => Promise.reject(new Error('boom'))],
  ])('%s: nothing, no throw', async (_name, file, recall) => {
    const handler = createHandler(file, { env: {}, recall });
    const { event, ctx } = turn('r4');
    await expect(handler(event, ctx)).resolves.toBeUndefined();
  });
});
