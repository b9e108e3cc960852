import { describe, expect, it } from 'vitest';
import { dedupeEnvEntries, looksSecret, lookupEnv } from '../../../src/policy/environment-names.js';

describe('lookupEnv', () => {
  it.each([
    [{ PATH: '/a' }, 'PATH', 'posix', '/a'],
    [{ Path: '/a' }, 'PATH', 'posix', undefined],
    [{ Path: 'C:\\a' }, 'PATH', 'windows', 'C:\\a'],
    [{ PATH: 'exact', Path: 'other' }, 'PATH', 'windows', 'exact'],
    [{ path: 'lower', Path: 'mixed' }, 'PATH', 'windows', 'mixed'],
    [{ Path: 'mixed', path: 'lower' }, 'PATH', 'windows', 'mixed'],
    [{ X: undefined }, 'X', 'posix', undefined],
    [{}, 'constructor', 'posix', undefined],
    [{}, '__proto__', 'windows', undefined],
    [{}, 'toString', 'windows', undefined],
  ] as const)('%j %s (%s) → %j', (env, name, platform, value) => {
    expect(lookupEnv(env, name, platform)).toBe(value);
  });
});

describe('dedupeEnvEntries', () => {
  const e = (name: string, value: string) => ({ name, value });
  it.each([
    [
      'posix keeps different spellings',
      'posix',
      [e('Path', 'a'), e('PATH', 'b')],
      [e('Path', 'a'), e('PATH', 'b')],
    ],
    [
      'windows: the later spelling replaces the earlier one',
      'windows',
      [e('Path', 'a'), e('PATH', 'b')],
      [e('PATH', 'b')],
    ],
    [
      'windows: three spellings, one survivor',
      'windows',
      [e('path', 'a'), e('X', 'x'), e('Path', 'b'), e('PATH', 'c')],
      [e('X', 'x'), e('PATH', 'c')],
    ],
    [
      'posix: the later value of the same name wins, at the later position',
      'posix',
      [e('A', '1'), e('B', '2'), e('A', '3')],
      [e('B', '2'), e('A', '3')],
    ],
    ['empty', 'windows', [], []],
  ] as const)('%s', (_title, platform, entries, expected) => {
    const input = [...entries];
    expect(dedupeEnvEntries(input, platform)).toEqual(expected);
    expect(input).toEqual(entries);
  });
});

describe('looksSecret', () => {
  it.each([
    ['OPENAI_API_KEY', true],
    ['GITHUB_TOKEN', true],
    ['DB_PASSWORD', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['DASHSCOPE_APIKEY', true],
    ['NPM_AUTH', true],
    ['TERM', false],
    ['LANG', false],
    ['LC_ALL', false],
    ['TZ', false],
    ['COLORTERM', false],
    ['KEYBOARD_LAYOUT', false],
    ['TOKENIZER_PATH', false],
  ])('%s → %s', (name, expected) => {
    expect(looksSecret(name)).toBe(expected);
  });
});
