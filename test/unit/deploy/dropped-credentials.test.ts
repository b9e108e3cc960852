// The credential files an earlier render routed and this one does not, read from the rendered launch
// plans and broker.json (render names each one still on disk: it deletes nothing outside the tree).
import { describe, expect, it } from 'vitest';
import { credentialFilesOf, droppedCredentialFiles } from '../../../src/deploy/render/dropped-credentials.js';

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const tree = (entries: Record<string, unknown>) =>
  new Map(Object.entries(entries).map(([rel, value]) => [rel, bytes(value)]));

describe('credential files dropped between two renders', () => {
  const before = tree({
    'profiles/on-demand/launch.json': {
      credentials: {
        CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' },
        OPENAI_API_KEY: { inherit: true },
      },
    },
    'profiles/write/launch.json': {
      credentials: {
        MEM0_API_KEY: { file: '/etc/qm/mem0.key' },
        CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' },
      },
    },
    'broker/broker.json': { credentials: { OPENAI_API_KEY: { file: '/etc/qm/model.key' } } },
    'profiles/on-demand/system-settings.json': { credentials: { X: { file: '/not/a/plan' } } },
  });

  it('reads every launch plan and broker.json, nothing else, by file', () => {
    expect(Object.fromEntries(credentialFilesOf(before))).toEqual({
      '/etc/qm/context.token': ['CONTEXT_API_TOKEN'],
      '/etc/qm/mem0.key': ['MEM0_API_KEY'],
      '/etc/qm/model.key': ['OPENAI_API_KEY'],
    });
  });

  it.each([
    ['the same files', before, []],
    [
      'a provider removed and the broker turned off (its key now inherited)',
      tree({
        'profiles/on-demand/launch.json': {
          credentials: {
            CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' },
            OPENAI_API_KEY: { inherit: true },
          },
        },
      }),
      [
        { file: '/etc/qm/mem0.key', names: ['MEM0_API_KEY'] },
        { file: '/etc/qm/model.key', names: ['OPENAI_API_KEY'] },
      ],
    ],
    [
      'a credential moved to another file, by the broker now',
      tree({
        'broker/broker.json': {
          credentials: {
            CONTEXT_API_TOKEN: { file: '/etc/qm/context.token' },
            MEM0_API_KEY: { file: '/etc/qm/mem0-v2.key' },
            OPENAI_API_KEY: { file: '/etc/qm/model.key' },
          },
        },
      }),
      [{ file: '/etc/qm/mem0.key', names: ['MEM0_API_KEY'] }],
    ],
  ])('%s', (_title, next, dropped) => {
    expect(droppedCredentialFiles([before], next)).toEqual(dropped);
  });

  it('a previous plan that is not JSON routes nothing', () => {
    const broken = new Map([['profiles/on-demand/launch.json', new TextEncoder().encode('{')]]);
    expect(droppedCredentialFiles([broken], new Map())).toEqual([]);
  });
});
