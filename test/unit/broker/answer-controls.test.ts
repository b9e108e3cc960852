// The model listener's C1 rule: every C1 control of the answer becomes U+FFFD, raw or JSON-escaped,
// wherever the chunks are cut, and nothing else of the answer changes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseAnswerControls } from '../../../src/broker/answer-controls.js';

/** The answer `text` cut at `cuts`, passed through one neutraliser; the bytes out as UTF-8 text. */
function through(bytes: Uint8Array, cuts: readonly number[] = []): Buffer {
  const controls = neutraliseAnswerControls();
  const points = [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort(
    (a, b) => a - b,
  );
  const out: Buffer[] = [];
  for (let i = 1; i < points.length; i++) out.push(controls.push(bytes.subarray(points[i - 1], points[i])));
  out.push(controls.end());
  return Buffer.concat(out);
}
const text = (s: string, cuts: readonly number[] = []) =>
  through(Buffer.from(s, 'utf8'), cuts).toString('utf8');

/** Python's json.dumps (ensure_ascii): every non-ASCII unit as `\uXXXX`. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
const C1 = /[\u0080-\u009f]/g;
const replaced = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_key, v) => (typeof v === 'string' ? v.replace(C1, '\ufffd') : v));

describe('neutraliseAnswerControls', () => {
  it.each<[string, string, string]>([
    ['raw CSI and OSC', 'a\u009b31mb\u009d0;title\u009c', 'a\ufffd31mb\ufffd0;title\ufffd'],
    [
      'escaped, either case',
      'a\\u009b31m \\u009D8;;ssh://x\\u009c \\u0085',
      'a\\ufffd31m \\ufffd8;;ssh://x\\ufffd \\ufffd',
    ],
    ['an escaped backslash before u009b is text', '\\\\u009b', '\\\\u009b'],
    ['an escaped backslash, then a real escape', '\\\\\\u009b', '\\\\\\ufffd'],
    [
      'other escapes and Latin-1 letters stay',
      '\\u00e9 \\u0041 \\n é ¿ \u00a0 \\u00a0',
      '\\u00e9 \\u0041 \\n é ¿ \u00a0 \\u00a0',
    ],
    ['ESC and BEL stay (Qwen escapes ESC sequences itself)', '\\u001b]0;t\\u0007', '\\u001b]0;t\\u0007'],
    ['an incomplete escape at the end stays', 'x\\u009', 'x\\u009'],
  ])('%s', (_name, input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('the same output wherever the chunks are cut', () => {
    const piece = fc.constantFrom('a', '\\', 'u', '0', '9', 'b', '8', 'é', '\u009b', '\u0085', '"', '部');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
        const input = Buffer.from(parts.join(''), 'utf8');
        expect(through(input, cuts).equals(through(input))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('any JSON answer, written raw or ASCII-escaped and cut anywhere, parses to the same value with C1 as U+FFFD', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.string({
          unit: fc.constantFrom('\u009b', '\u009d', '\u009c', '\u0080', '\u009f', '\\', 'u', 'x'),
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (json, controls, cuts) => {
          const value = { content: controls, json };
          for (const written of [JSON.stringify(value), asciiJson(value)]) {
            const out = through(Buffer.from(written, 'utf8'), cuts).toString('utf8');
            expect(JSON.parse(out)).toEqual(replaced(value));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
