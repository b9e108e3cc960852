import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointWidthAt, takeCodePoints } from '../../../src/text/codepoints.js';

// fc.assert is synchronous, so vitest's timeout cannot stop a long shrink: bound it here.
fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

const unit = fc.oneof(
  fc.constantFrom('<', '>', '"', '\\', '\n', '\u0000', '\u2028', '\u2029', '😀', '\ud800', '\udc00', 'a'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

describe('takeCodePoints', () => {
  it.each([
    ['shorter than the limit', 'abc', 5, 'abc'],
    ['ASCII', 'abcdef', 3, 'abc'],
    ['astral characters count once', '😀😀😀', 2, '😀😀'],
    ['a pair is never split', 'a😀b', 2, 'a😀'],
    ['a lone surrogate counts once', '\ud800\ud800x', 2, '\ud800\ud800'],
    ['zero', 'abc', 0, ''],
  ])('%s', (_case, text, max, expected) => {
    expect(takeCodePoints(text, max)).toBe(expected);
  });

  it('matches spreading into code points', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.nat(45), (text, max) => {
        expect(takeCodePoints(text, max)).toBe([...text].slice(0, max).join(''));
      }),
    );
  });

  // How fast the cut is on a huge input is a benchmark question (npm run bench), not a test's.
  it('cuts a huge string to exactly its first code points', () => {
    const huge = `${'😀'.repeat(999)}a😀${'b'.repeat(5_000_000)}`;
    expect(takeCodePoints(huge, 1000)).toBe(`${'😀'.repeat(999)}a`);
    expect(takeCodePoints(huge, 1001)).toBe(`${'😀'.repeat(999)}a😀`);
  });
});

describe('codePointWidthAt', () => {
  it.each([
    ['BMP', 'a', 0, 1],
    ['pair', '😀', 0, 2],
    ['low half of a pair', '😀', 1, 1],
    ['lone high surrogate', '\ud800a', 0, 1],
  ])('%s', (_case, text, index, expected) => {
    expect(codePointWidthAt(text, index)).toBe(expected);
  });
});
