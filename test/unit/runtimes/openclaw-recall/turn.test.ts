// Which OpenClaw prompt builds search, and with what text: the plugin's provenance contract.
import { describe, expect, it } from 'vitest';
import { SeenRuns, userTurn } from '../../../../src/runtimes/openclaw-recall/turn.js';

function authority(allowed = ['memory_search']) {
  return { allows: (tool: string) => allowed.includes(tool), assertActive: () => {}, fingerprint: 'f' };
}

const ctx = (extra: Record<string, unknown> = {}) => ({
  runId: 'run-1',
  trigger: 'user',
  workspaceDir: '/repo',
  toolAuthority: authority(),
  ...extra,
});

describe('userTurn', () => {
  it.each([
    ['the embedded runner: prompt is the current input', { prompt: 'How?', messages: [] }, ctx(), 'How?'],
    [
      'currentUserMessage wins over a prompt with rebuilt history',
      { prompt: 'history…\nHow?', currentUserMessage: 'How?', messages: [] },
      ctx(),
      'How?',
    ],
    [
      'typed provenance from the user',
      { prompt: 'How?', messages: [] },
      ctx({ inputProvenance: { kind: 'external_user' } }),
      'How?',
    ],
  ])('%s', (_name, event, context, prompt) => {
    expect(userTurn(event, context, new SeenRuns())).toMatchObject({ prompt, cwd: '/repo' });
  });

  it.each([
    [
      'an explicitly empty current message (never falls back to prompt)',
      { prompt: 'How?', currentUserMessage: '' },
      ctx(),
    ],
    ['a blank prompt', { prompt: '  \n' }, ctx()],
    ['no text at all', { messages: [] }, ctx()],
    ['a heartbeat run', { prompt: 'How?' }, ctx({ trigger: 'heartbeat' })],
    ['a cron run', { prompt: 'How?' }, ctx({ trigger: 'cron' })],
    [
      'an inter-session delivery keeping the user trigger',
      { prompt: 'How?' },
      ctx({ inputProvenance: { kind: 'inter_session' } }),
    ],
    ['host-made input', { prompt: 'How?' }, ctx({ inputProvenance: { kind: 'internal_system' } })],
    ['malformed provenance', { prompt: 'How?' }, ctx({ inputProvenance: 'external_user' })],
    [
      'no tool authority (the ordinary, pre-policy phase)',
      { prompt: 'How?' },
      ctx({ toolAuthority: undefined }),
    ],
    ['memory search not allowed this turn', { prompt: 'How?' }, ctx({ toolAuthority: authority(['read']) })],
    ['no run id', { prompt: 'How?' }, ctx({ runId: undefined })],
    ['no workspace', { prompt: 'How?' }, ctx({ workspaceDir: undefined })],
    ['not an object', 'How?', ctx()],
  ])('%s: no search', (_name, event, context) => {
    expect(userTurn(event, context, new SeenRuns())).toBeUndefined();
  });

  it('a retry or continuation in the same run (OpenClaw rebuilds it with its own text) never searches again', () => {
    const runs = new SeenRuns();
    expect(userTurn({ prompt: 'How?' }, ctx(), runs)).toBeDefined();
    const continuation =
      'Continue the current task from the existing transcript, preserving completed work. If an action was interrupted, inspect its state before deciding whether to retry it. Do not restart the task or repeat completed actions.';
    expect(userTurn({ prompt: continuation }, ctx(), runs)).toBeUndefined();
    expect(userTurn({ prompt: 'Next question' }, ctx({ runId: 'run-2' }), runs)).toMatchObject({
      prompt: 'Next question',
    });
  });

  it('remembers a bounded number of runs', () => {
    const runs = new SeenRuns(2);
    expect([runs.first('a'), runs.first('b'), runs.first('a'), runs.first('c'), runs.first('a')]).toEqual([
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it('asks the authority about the memory-search capability, after every other check', () => {
    const asked: string[] = [];
    const context = ctx({
      toolAuthority: {
        allows: (tool: string) => {
          asked.push(tool);
          return true;
        },
        assertActive: () => {},
      },
    });
    userTurn({ prompt: '' }, context, new SeenRuns());
    expect(asked).toEqual([]);
    userTurn({ prompt: 'How?' }, context, new SeenRuns());
    expect(asked).toEqual(['memory_search']);
  });
});
