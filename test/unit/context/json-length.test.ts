import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapedJsonLength, longestEscapedPrefix } from '../../../src/context/json-length.js';

// fc.assert is synchronous, so vitest's timeout cannot stop a long shrink: bound it here.
fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

const unit = fc.oneof(
  fc.constantFrom(
    '<',
    '>',
    '[',
    '"',
    '\\',
    '\n',
    '\b',
    '\u0000',
    '\u001f',
    '\u2028',
    '\u2029',
    '😀',
    '\ud800',
    '\udc00',
    'a',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

/** The renderer's escape of one string, as it lands in the output. */
const rendered = (text: string) =>
  JSON.stringify(text)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('[', '\\u005b')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');

describe('escapedJsonLength', () => {
  it.each([
    ['', 2],
    ['abc', 5],
    ['<>', 14],
    ['[]', 9],
    ['"\\', 6],
    ['\n\u0001', 10],
    ['😀', 4],
    ['\ud800', 8],
    ['\u2028\u2029', 14],
  ])('%j → %d', (text, expected) => {
    expect(escapedJsonLength(text)).toBe(expected);
  });

  it('equals the length of the rendered escape', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (text) => {
        expect(escapedJsonLength(text)).toBe(rendered(text).length);
      }),
    );
  });
});

describe('longestEscapedPrefix', () => {
  it.each([
    ['everything fits', 'abc', 5, { text: 'abc', length: 5 }],
    ['one unit short', 'abc', 4, { text: 'ab', length: 4 }],
    ['an escape is priced whole', 'a<b', 8, { text: 'a', length: 3 }],
    ['the escape fits exactly', 'a<b', 9, { text: 'a<', length: 9 }],
    ['a pair is never split', 'a😀b', 4, { text: 'a', length: 3 }],
    ['a pair fits whole', 'a😀b', 5, { text: 'a😀', length: 5 }],
    ['a lone surrogate costs its six-unit escape', 'a\ud800\ud800', 9, { text: 'a\ud800', length: 9 }],
    ['a lone high surrogate at the end', 'a\ud800', 9, { text: 'a\ud800', length: 9 }],
    ['the short control escapes', '\t\n\r\b\f', 12, { text: '\t\n\r\b\f', length: 12 }],
    ['the long control escapes', '\u0000\u001f', 14, { text: '\u0000\u001f', length: 14 }],
  ])('%s', (_case, text, room, expected) => {
    expect(longestEscapedPrefix(text, room)).toEqual(expected);
  });

  it.each([
    ['no room for the quotes and one unit', 'abc', 2],
    ['no room for the first escape', '<abc', 7],
    ['no room for the first pair', '😀', 3],
    ['empty text', '', 100],
  ])('gives nothing when %s', (_case, text, room) => {
    expect(longestEscapedPrefix(text, room)).toBeUndefined();
  });

  // The one-pass search against its definition: the longest whole-code-point prefix whose rendered
  // escape fits, found by trying every prefix with the native escape.
  it('finds the longest prefix that fits, and prices it as the rendered escape', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), fc.nat(260), (text, room) => {
        const points = [...text];
        let best: { text: string; length: number } | undefined;
        for (let n = 1; n <= points.length; n++) {
          const prefix = points.slice(0, n).join('');
          if (rendered(prefix).length <= room) best = { text: prefix, length: rendered(prefix).length };
          else break;
        }
        expect(longestEscapedPrefix(text, room)).toEqual(best);
      }),
    );
  });
});
