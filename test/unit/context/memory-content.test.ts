import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hiddenInMemoryContent, isValidMemoryContent } from '../../../src/context/memory-content.js';

// fc.assert is synchronous, so vitest's timeout cannot stop a long shrink: bound it here.
fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

describe('isValidMemoryContent', () => {
  it.each([
    ['plain text', 'remember to run npm ci before the e2e suite'],
    ['one character', 'a'],
    ['surrounding whitespace is kept, not a reason to reject', '  padded  '],
    ['CJK', '部署前先运行测试'],
    ['an astral character', '😀'],
    ['exactly 4000 code points', 'x'.repeat(4000)],
    ['exactly 4000 astral code points (8000 units)', '😀'.repeat(4000)],
    ['Markdown', '# Title\n- item\n```sh\nrm -rf /\n```'],
    ['HTML-looking text', '<b>bold</b><script>alert(1)</script>'],
    ['bidi control next to visible text', 'abc\u202edef'],
    ['zero-width space next to visible text', '\u200bx'],
    ['a visible character after controls', '\u0000\u0085\u009bz'],
  ])('accepts %s', (_case, content) => {
    expect(isValidMemoryContent(content)).toBe(true);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['an object', { content: 'x' }],
    ['an array', ['x']],
    ['the empty string', ''],
    ['spaces', '   '],
    ['tabs and newlines', '\n\t\r'],
    ['ideographic and no-break spaces', '\u3000\u00a0'],
    ['zero-width characters', '\u200b\u200c\u200d'],
    ['a byte-order mark', '\ufeff'],
    ['bidi overrides and isolates', '\u202e\u2066\u2067\u2068\u2069'],
    ['C1 controls', '\u0085\u009b'],
    ['line and paragraph separators', '\u2028\u2029'],
    ['only an astral format character', '\u{110BD}'],
    ['only language tags', '\u{E0001}\u{E0041}'],
    ['4001 code points', 'x'.repeat(4001)],
    ['4001 astral code points', '😀'.repeat(4001)],
    ['a lone high surrogate', 'ok\ud800'],
    ['a lone low surrogate', '\udc00ok'],
    ['a reversed pair', 'ok\udc00\ud800'],
  ])('rejects %s', (_case, content) => {
    expect(isValidMemoryContent(content)).toBe(false);
  });

  it('agrees with a code-point reference implementation', () => {
    const unit = fc.oneof(
      fc.constantFrom(' ', '\n', '\u200b', '\u202e', '\u{110BD}', '\u0085', '\ud800', '\udc00', 'a', '😀'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 20 }), (content) => {
        const points = [...content];
        const expected =
          points.length <= 4000 &&
          points.every((p) => !/^[\ud800-\udfff]$/.test(p)) &&
          points.some((p) => !/[\p{White_Space}\p{Cc}\p{Cf}]/u.test(p));
        expect(isValidMemoryContent(content)).toBe(expected);
      }),
    );
  });
});

// The rule as the spec words it, with \p{…} classes; the module takes cheaper paths to the same answer.
const referenceValid = (value: string) =>
  [...value].length <= 4000 && !/\p{Cs}/u.test(value) && /[^\p{White_Space}\p{Cc}\p{Cf}]/u.test(value);

describe('isValidMemoryContent equals the \\p{…} reference rule', () => {
  it('for every single code point U+0000…U+10FFFF (the generated table against the \\p{…} class)', () => {
    const differing: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      const text = String.fromCodePoint(cp);
      if (isValidMemoryContent(text) !== referenceValid(text)) differing.push(cp.toString(16));
    }
    expect(differing).toEqual([]);
  });

  // Characters at every branch: printable ASCII, spaces, controls, format characters, lone halves.
  const unit = fc.oneof(
    fc.constantFrom(' ', '\t', '\n', '\u0085', '\u00a0', '\u3000', '\u0000', '\u007f', '\u009f'),
    fc.constantFrom('\u00ad', '\u200b', '\u202e', '\ufeff', '\u{110bd}', '\u{e0001}', '\ud800', '\udfff'),
    fc.constantFrom('a', '~', '!', 'é', '部', '😀'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  it('for strings built from those characters', () => {
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 12 }).map((parts) => parts.join('')),
        (value) => {
          expect(isValidMemoryContent(value)).toBe(referenceValid(value));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('hiddenInMemoryContent: valid content a terminal would draw otherwise (refused by the hook and the tool)', () => {
  it.each<[string, string, number[]]>([
    ['plain text with tab and newline', 'run npm ci\n\tthen test', []],
    ['CJK, emoji, accents, no-break space', '部署 😀 é\u0301\u00a0', []],
    ['variation selectors after visible text', 'ok\ufe0f\u{E01EF}', [0xfe0f, 0xe01ef]],
    ['a bidi override and a zero-width space', 'abc\u202edef\u200b', [0x202e, 0x200b]],
    ['a carriage return and C1 controls', 'a\rb\u0085', [0x0d, 0x85]],
  ])('%s', (_case, content, hidden) => {
    expect(isValidMemoryContent(content)).toBe(true);
    expect(hiddenInMemoryContent(content)).toEqual(hidden);
  });
});
