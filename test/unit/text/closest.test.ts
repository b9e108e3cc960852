// "Did you mean": one edit-distance rule for every suggestion, and one wording for a value outside a
// fixed list (deployment.json's enums and the Qwen settings' enums alike).
import { describe, expect, it } from 'vitest';
import { closest, oneOfFix } from '../../../src/text/closest.js';

describe('closest', () => {
  it.each<[string, string[], string | undefined]>([
    ['instalDir', ['installDir', 'profiles'], 'installDir'],
    ['auto-recal', ['on-demand', 'auto-recall', 'write'], 'auto-recall'],
    ['AUTO-RECALL', ['auto-recall'], 'auto-recall'],
    ['wirte', ['write'], 'write'],
    ['something-else', ['write', 'on-demand'], undefined],
  ])('%s among %j → %s', (typed, candidates, near) => {
    expect(closest(typed, candidates)).toBe(near);
  });
});

describe('oneOfFix', () => {
  const json = (v: unknown) => JSON.stringify(v);
  it.each<[unknown, unknown[], string]>([
    ['opnai', ['openai', 'gemini'], 'did you mean "openai"? (one of "openai", "gemini")'],
    ['zzz', ['openai', 'gemini'], 'use one of "openai", "gemini"'],
    // Only a string is a typo of a string.
    [3, [1, 2, 'three'], 'use one of 1, 2, "three"'],
  ])('%j', (value, allowed, fix) => {
    expect(oneOfFix(value, allowed, json)).toBe(fix);
  });
});
