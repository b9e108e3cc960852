import { describe, expect, it } from 'vitest';
import { failure, helpText, LaunchError, rolledBackNotice, usage } from '../../../launcher/messages.js';
import { show } from '../../../src/policy/quote.js';

describe('show', () => {
  it.each([
    ['plain', '"plain"'],
    ['/opt/it\'s "x"', '"/opt/it\'s \\"x\\""'],
    ['\u001b[31mred', '"\\u001b[31mred"'],
    ['a\nb\tc', '"a\\nb\\tc"'],
    ['del\u007f c1\u009b', '"del\\u007f c1\\u009b"'],
    ['bidi\u202eevil\u2066', '"bidi\\u202eevil\\u2066"'],
    ['line\u2028sep', '"line\\u2028sep"'],
  ])('%j → %s', (value, shown) => {
    expect(show(value)).toBe(shown);
  });
});

describe('messages', () => {
  it('the rolled-back notice is one line naming the profile', () => {
    expect(rolledBackNotice('auto-recall')).toBe(
      'launch-qwen: profile "auto-recall" is rolled back; starting Qwen without external context.',
    );
  });

  it.each([
    [failure('a', 'b'), 1, ['a', 'b']],
    [usage('c'), 2, ['c']],
  ])('LaunchError carries exit code %#', (error, code, problems) => {
    expect(error).toBeInstanceOf(LaunchError);
    expect([error.exitCode, error.problems, error.message]).toEqual([code, problems, problems.join('\n')]);
  });

  it('--help documents every exit code', () => {
    const help = helpText(['on-demand', 'auto-recall', 'write']);
    expect(help).toContain('Usage: launch-qwen --profile <kind>');
    expect(help).toContain('Profile kinds: on-demand, auto-recall, write.');
    for (const code of ['  0 ', '  2 ', '  1 ', '  * ']) expect(help).toContain(`\n${code}`);
  });
});
