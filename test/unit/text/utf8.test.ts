// decodeUtf8 must answer exactly what TextDecoder('utf-8', { fatal: true }) answers, undefined
// where the decoder throws: the named cases pin the edges, the properties compare the two at random.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../../src/text/utf8.js';

// fc.assert is synchronous, so vitest's timeout cannot stop a long shrink: bound it here.
fc.configureGlobal({ interruptAfterTimeLimit: 10_000 });

const BOM = [0xef, 0xbb, 0xbf];
const fatal = new TextDecoder('utf-8', { fatal: true });
/** The reference answer: TextDecoder's text, or undefined where it throws. */
function reference(bytes: Uint8Array): string | undefined {
  try {
    return fatal.decode(bytes);
  } catch {
    return undefined;
  }
}
/** `bytes` as a view that starts `offset` bytes into a larger buffer filled with `fill`. */
function atOffset(bytes: Uint8Array, offset: number, fill = 0xff): Uint8Array {
  const backing = new Uint8Array(offset + bytes.length + 2).fill(fill);
  backing.set(bytes, offset);
  return backing.subarray(offset, offset + bytes.length);
}

describe('decodeUtf8', () => {
  it.each<[string, Uint8Array, string | undefined]>([
    ['empty', new Uint8Array(), ''],
    ['ASCII', Buffer.from('plain text'), 'plain text'],
    ['two-byte sequence', Uint8Array.of(0xc3, 0xbc), 'ü'],
    ['three-byte sequence', Uint8Array.of(0xe2, 0x9c, 0x93), '✓'],
    ['four-byte sequence', Uint8Array.of(0xf0, 0x9f, 0x98, 0x80), '😀'],
    ['a BOM alone', Uint8Array.of(...BOM), ''],
    ['a BOM then text', Uint8Array.of(...BOM, 0x68, 0x69), 'hi'],
    // Only the first BOM is a signature; the second is text.
    ['two BOMs', Uint8Array.of(...BOM, ...BOM), '\ufeff'],
    ['a BOM after text is kept', Uint8Array.of(0x68, ...BOM, 0x69), 'h\ufeffi'],
    ['a truncated BOM', Uint8Array.of(0xef, 0xbb), undefined],
    ['NUL is text', Uint8Array.of(0x00), '\u0000'],
    ['overlong NUL (C0 80)', Uint8Array.of(0xc0, 0x80), undefined],
    ['overlong slash (C1 AF)', Uint8Array.of(0xc1, 0xaf), undefined],
    ['overlong three-byte (E0 80 AF)', Uint8Array.of(0xe0, 0x80, 0xaf), undefined],
    ['overlong four-byte (F0 80 80 AF)', Uint8Array.of(0xf0, 0x80, 0x80, 0xaf), undefined],
    ['encoded high surrogate (ED A0 80)', Uint8Array.of(0xed, 0xa0, 0x80), undefined],
    ['encoded low surrogate (ED BF BF)', Uint8Array.of(0xed, 0xbf, 0xbf), undefined],
    ['last before the surrogates (ED 9F BF)', Uint8Array.of(0xed, 0x9f, 0xbf), '\ud7ff'],
    ['lone continuation byte', Uint8Array.of(0x80), undefined],
    ['truncated two-byte', Uint8Array.of(0x61, 0xc3), undefined],
    ['truncated three-byte', Uint8Array.of(0xe2, 0x9c), undefined],
    ['truncated four-byte', Uint8Array.of(0xf0, 0x9f, 0x98), undefined],
    ['truncated sequence before ASCII', Uint8Array.of(0xe2, 0x9c, 0x61), undefined],
    ['U+10FFFF (F4 8F BF BF)', Uint8Array.of(0xf4, 0x8f, 0xbf, 0xbf), '\u{10ffff}'],
    ['above U+10FFFF (F4 90 80 80)', Uint8Array.of(0xf4, 0x90, 0x80, 0x80), undefined],
    ['F5 lead byte', Uint8Array.of(0xf5, 0x80, 0x80, 0x80), undefined],
    ['FE and FF', Uint8Array.of(0xfe, 0xff), undefined],
    // The bytes before the view are invalid UTF-8 and must be ignored.
    [
      'a Buffer subarray at a non-zero offset',
      Buffer.from([0xff, 0xff, 0x6f, 0x6b, 0xff]).subarray(2, 4),
      'ok',
    ],
    ['a BOM at the start of a subarray', atOffset(Uint8Array.of(...BOM, 0x6f, 0x6b), 5), 'ok'],
    // A BOM just before the view is not the view's BOM.
    ['a BOM just before a subarray', Uint8Array.of(...BOM, 0x6f, 0x6b).subarray(3), 'ok'],
  ])('%s', (_case, bytes, expected) => {
    expect(decodeUtf8(bytes)).toEqual(expected);
    // Each row also holds for the reference decoder, so the table cannot drift from it.
    expect(reference(bytes)).toEqual(expected);
  });

  const encode = (text: string, bom: boolean) => Uint8Array.of(...(bom ? BOM : []), ...Buffer.from(text));

  it('equals TextDecoder fatal on arbitrary bytes, at any offset', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(7), (bytes, offset) => {
        expect(decodeUtf8(atOffset(bytes, offset))).toEqual(reference(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals TextDecoder fatal on the UTF-8 of arbitrary strings, with and without a BOM', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.boolean(), (text, bom) => {
        const bytes = encode(text, bom);
        expect(decodeUtf8(bytes)).toEqual(reference(bytes));
        // Behind a BOM the text comes back whole, even one starting with U+FEFF (lone surrogates are U+FFFD).
        expect(decodeUtf8(encode(text, true))).toEqual(Buffer.from(text).toString('utf8'));
      }),
      { numRuns: 2000 },
    );
  });

  it('equals TextDecoder fatal on valid UTF-8 with one byte changed', () => {
    // Near-valid input reaches the validator's edge cases far more often than random bytes do.
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
        fc.boolean(),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (text, bom, at, value) => {
          const bytes = encode(text, bom);
          bytes[at % bytes.length] = value;
          expect(decodeUtf8(bytes)).toEqual(reference(bytes));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
