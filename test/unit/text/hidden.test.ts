// The code points a terminal may draw as nothing or as something else: the generated table equals
// Unicode's own data over the whole code-point range, and the runtime functions agree with it.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  generateHiddenCodePoints,
  HIDDEN_CLASS,
  HIDDEN_CODE_POINTS_FILE,
  INVISIBLE_CLASS,
} from '../../../scripts/generate-hidden-code-points.js';
import { REPOSITORY_ROOT } from '../../../scripts/generate-schemas.js';
import {
  codePointLabel,
  describeCodePoints,
  hiddenCodePoints,
  inRanges,
  isHiddenCodePoint,
} from '../../../src/text/hidden.js';
import { INVISIBLE_RANGES } from '../../../src/text/hidden-code-points.js';

fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

const UNICODE = new RegExp(HIDDEN_CLASS, 'v');
const isSurrogate = (cp: number) => cp >= 0xd800 && cp <= 0xdfff;
const byUnicode = (cp: number) => !isSurrogate(cp) && UNICODE.test(String.fromCodePoint(cp));

describe('the hidden code points table', () => {
  it('is the committed generation (`npm run schemas`)', () => {
    expect(readFileSync(`${REPOSITORY_ROOT}/${HIDDEN_CODE_POINTS_FILE}`, 'utf8')).toBe(
      generateHiddenCodePoints(),
    );
  });

  it('equals Unicode’s own properties for every code point U+0000…U+10FFFF', () => {
    const differing: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (isSurrogate(cp)) continue;
      if (isHiddenCodePoint(cp) !== byUnicode(cp)) differing.push(codePointLabel(cp));
    }
    expect(differing).toEqual([]);
  });

  it('holds what a terminal draws as nothing and the fillers, and not ordinary text', () => {
    const hidden = [
      // Variation selectors, also the supplementary ones.
      0xfe00, 0xfe0f, 0xe0100, 0xe01ef,
      // Tag characters.
      0xe0001, 0xe0020, 0xe0041, 0xe007f,
      // Zero-width characters, bidi controls, the combining grapheme joiner, the byte-order mark.
      0x200b, 0x200c, 0x200d, 0x2060, 0x202a, 0x202e, 0x2066, 0x2069, 0x061c, 0x034f, 0xfeff,
      // Fillers: Hangul, halfwidth Hangul, braille blank; Mongolian variation selectors.
      0x115f, 0x1160, 0x3164, 0xffa0, 0x2800, 0x180b, 0x180e, 0x180f,
      // Controls (but tab and newline), separators, private use, interlinear annotation.
      0x0000, 0x0008, 0x000d, 0x001b, 0x007f, 0x0085, 0x009b, 0x2028, 0x2029, 0xe000, 0xf8ff, 0x10fffd,
      0xfff9,
    ];
    const shown = [0x09, 0x0a, 0x20, 0x41, 0x7e, 0xa0, 0xe9, 0x0301, 0x3000, 0x4e2d, 0x1f600, 0xfffd, 0x2801];
    expect(hidden.filter((cp) => !isHiddenCodePoint(cp)).map(codePointLabel)).toEqual([]);
    expect(shown.filter((cp) => isHiddenCodePoint(cp)).map(codePointLabel)).toEqual([]);
  });

  it('random code points anywhere in the range: the binary search agrees with Unicode', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0x10ffff }).filter((cp) => !isSurrogate(cp)),
        (cp) => {
          expect(isHiddenCodePoint(cp)).toBe(byUnicode(cp));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe('the invisible code points table (white space, controls, format characters)', () => {
  const invisible = new RegExp(INVISIBLE_CLASS, 'v');
  /** Code points where `ranges` and Unicode's `[\p{White_Space}\p{Cc}\p{Cf}]` disagree. */
  const differences = (ranges: readonly number[]) => {
    const differing: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (isSurrogate(cp)) continue;
      if (inRanges(ranges, cp) !== invisible.test(String.fromCodePoint(cp)))
        differing.push(codePointLabel(cp));
    }
    return differing;
  };

  it('equals Unicode’s own properties for every code point U+0000…U+10FFFF', () => {
    expect(differences(INVISIBLE_RANGES)).toEqual([]);
  });

  it('negative control: a table missing its no-break space range is caught', () => {
    const at = INVISIBLE_RANGES.indexOf(0x007f);
    const without = [...INVISIBLE_RANGES.slice(0, at), ...INVISIBLE_RANGES.slice(at + 2)];
    expect(differences(without)).toContain('U+00A0');
  });
});

describe('hiddenCodePoints', () => {
  it.each<[string, string, number[]]>([
    ['plain ASCII with tab and newline', 'a\tb\nc', []],
    [
      'a payload spelled in variation selectors after innocent text',
      'ok\ufe00\ufe0f\u{E0100}',
      [0xfe00, 0xfe0f, 0xe0100],
    ],
    ['repeats counted once, in order of first appearance', '\u200bx\u2800\u200b', [0x200b, 0x2800]],
    ['accented and CJK text, emoji', 'é部😀', []],
  ])('%s', (_title, text, found) => {
    expect(hiddenCodePoints(text)).toEqual(found);
  });

  it('finds exactly the distinct hidden code points of any string', () => {
    const unit = fc.oneof(
      fc.constantFrom(
        'a',
        ' ',
        '\n',
        '\t',
        '\r',
        '\u001b',
        '\ufe0f',
        '\u{e0041}',
        '\u3164',
        '\u2800',
        '部',
        '😀',
      ),
      fc
        .integer({ min: 0, max: 0x10ffff })
        .filter((cp) => !isSurrogate(cp))
        .map((cp) => String.fromCodePoint(cp)),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), (units) => {
        const text = units.join('');
        const expected: number[] = [];
        for (const char of text) {
          const cp = char.codePointAt(0)!;
          if (byUnicode(cp) && !expected.includes(cp)) expected.push(cp);
        }
        expect(hiddenCodePoints(text)).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('describeCodePoints', () => {
  it.each<[number[], string]>([
    [[0xfe0f], 'U+FE0F'],
    [[0x9, 0xe0041], 'U+0009, U+E0041'],
    [
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      'U+0001, U+0002, U+0003, U+0004, U+0005, U+0006, U+0007, U+0008 and 2 more',
    ],
  ])('%j → %s', (codePoints, text) => {
    expect(describeCodePoints(codePoints)).toBe(text);
  });
});
