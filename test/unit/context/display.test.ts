import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HIDDEN_CLASS } from '../../../scripts/generate-hidden-code-points.js';
import { confirmationRows, renderContentForDisplay } from '../../../src/context/display.js';

// fc.assert is synchronous, so vitest's timeout cannot stop a long shrink: bound it here.
fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

// Every character the confirmation line must never show raw: the generator's own class (Unicode data).
const HIDDEN = new RegExp(HIDDEN_CLASS, 'v');

describe('renderContentForDisplay', () => {
  it.each([
    ['plain text', 'plain', '"plain"'],
    ['quotes and backslashes, as JSON.stringify', 'say "hi" \\ ok', '"say \\"hi\\" \\\\ ok"'],
    ['C0 controls, as JSON.stringify', 'a\nb\u0000', '"a\\nb\\u0000"'],
    ['DEL and C1 controls', '\u007f\u0085\u009b', '"\\u007f\\u0085\\u009b"'],
    ['right-to-left override', 'abc\u202edef', '"abc\\u202edef"'],
    ['bidi isolates', '\u2066x\u2067y\u2068z\u2069', '"\\u2066x\\u2067y\\u2068z\\u2069"'],
    ['zero-width characters', 'a\u200b\u200c\u200db', '"a\\u200b\\u200c\\u200db"'],
    ['byte-order mark', '\ufeffx', '"\\ufeffx"'],
    ['soft hyphen and Arabic letter mark', '\u00ad\u061c', '"\\u00ad\\u061c"'],
    ['line and paragraph separators', 'a\u2028b\u2029c', '"a\\u2028b\\u2029c"'],
    ['astral format character, per UTF-16 unit, lower-case hex', 'x\u{110BD}y', '"x\\ud804\\udcbdy"'],
    ['language tag', '\u{E0001}', '"\\udb40\\udc01"'],
    ['a backslash right before a hidden character', '\\\u200b', '"\\\\\\u200b"'],
    ['variation selectors', 'ok\ufe0f\u{E0100}\u{E01EF}', '"ok\\ufe0f\\udb40\\udd00\\udb40\\uddef"'],
    ['tag characters spelling text', 'hi\u{E0041}\u{E0042}', '"hi\\udb40\\udc41\\udb40\\udc42"'],
    ['the combining grapheme joiner', 'a\u034fb', '"a\\u034fb"'],
    ['Hangul fillers', '\u115f\u1160\u3164\uffa0', '"\\u115f\\u1160\\u3164\\uffa0"'],
    ['the braille blank', 'a\u2800b', '"a\\u2800b"'],
    ['Mongolian variation selectors', '\u180b\u180f', '"\\u180b\\u180f"'],
    ['private use', '\ue000\uf8ff\u{F0000}', '"\\ue000\\uf8ff\\udb80\\udc00"'],
    [
      'accents, no-break and ideographic spaces stay as they are',
      'é\u0301\u00a0\u3000',
      '"é\u0301\u00a0\u3000"',
    ],
    ['emoji and CJK stay readable', '😀 部署', '"😀 部署"'],
    ['Markdown and HTML are shown literally', '# T\n<b>x</b>', '"# T\\n<b>x</b>"'],
    ['a lone surrogate, as JSON.stringify', 'a\ud800', '"a\\ud800"'],
  ])('%s', (_case, content, expected) => {
    const displayed = renderContentForDisplay(content);
    expect(displayed).toBe(expected);
    expect(JSON.parse(displayed)).toBe(content);
  });

  const hostile = fc.oneof(
    fc.constantFrom(
      '\u202e',
      '\u2066',
      '\u200b',
      '\ufeff',
      '\u{110BD}',
      '\u0085',
      '\u2028',
      '\\',
      '"',
      '\ud800',
      '\udc00',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  );

  it('round-trips through JSON.parse and shows no hidden character', () => {
    fc.assert(
      fc.property(fc.string({ unit: hostile, maxLength: 60 }), (content) => {
        const displayed = renderContentForDisplay(content);
        expect(JSON.parse(displayed)).toBe(content);
        expect(displayed).not.toMatch(HIDDEN);
        expect(displayed).not.toMatch(/[\u0000-\u001f]/);
      }),
    );
  });
});

describe('renderContentForDisplay equals the one-regex reference', () => {
  const every = new RegExp(HIDDEN_CLASS, 'gv');
  const reference = (content: string) =>
    JSON.stringify(content).replace(every, (match) =>
      // One escape per UTF-16 unit: an astral format character is two.
      Array.from(
        { length: match.length },
        (_, i) => `\\u${match.charCodeAt(i).toString(16).padStart(4, '0')}`,
      ).join(''),
    );
  const unit = fc.oneof(
    fc.constantFrom('a', ' ', '"', '\\', '\n', '\u007e', '\u007f', '\u0085', '\u00ad', '\u2028', '\u202e'),
    fc.constantFrom(
      '\ufeff',
      '\u{110bd}',
      '\u{e0020}',
      '\ud800',
      '部',
      '😀',
      '\ufe0f',
      '\u{e0100}',
      '\u2800',
    ),
    fc.constantFrom('\u3164', '\u034f', '\ue000', '\u{10fffd}', '\u180e', '\ufff9'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  it('for strings built from ASCII, hidden and astral characters', () => {
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 12 }).map((parts) => parts.join('')),
        (content) => {
          expect(renderContentForDisplay(content)).toBe(reference(content));
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('confirmationRows: the rows Qwen 0.24 lays a confirmation out in (word wrap, no row ever undercounted)', () => {
  it.each<[string, string, number, number]>([
    ['an empty line is a row', '', 10, 1],
    ['a line that fits', 'abc def', 10, 1],
    ['exactly the width', 'abcde fghi', 10, 1],
    ['a word that does not fit moves to the next row', 'abcde fghij', 10, 2],
    ['the white space that ends a row is dropped', 'abcde fghij klmno', 11, 2],
    ['each \n line on its own rows', 'ab\ncd\n', 10, 3],
    ['a word wider than the box fills rows code point by code point', 'x'.repeat(25), 10, 3],
    ['a long word after a short one starts a new row', `ab ${'x'.repeat(12)}`, 10, 3],
    ['a white-space run wider than the box is split like a word', ' '.repeat(21), 10, 3],
    ['wide characters count two columns', '部署部署部署', 10, 2],
    ['anything beyond printable ASCII counts two: é fills a 2-column box', 'é', 2, 1],
    ['…and overflows a 1-column box', 'aé', 2, 2],
  ])('%s', (_name, text, columns, rows) => {
    expect(confirmationRows(text, columns)).toBe(rows);
  });
});
