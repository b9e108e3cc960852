// Serialized length of a JSON string as the renderer emits it: JSON.stringify's escapes (the
// well-formed kind: a lone surrogate becomes `\uXXXX`) plus the renderer's own for <, >, [, U+2028, U+2029.
import { isHighSurrogate, isLowSurrogate } from '../text/codepoints.js';

/** Length of `JSON.stringify(text)` once every `<`, `>`, `[`, U+2028 and U+2029 has become a six-character `\uXXXX` escape. */
export function escapedJsonLength(text: string): number {
  // Native stringify is far cheaper than a per-unit loop for a whole field in a cold hook process.
  const escaped =
    countOf(text, '<') +
    countOf(text, '>') +
    countOf(text, '[') +
    countOf(text, '\u2028') +
    countOf(text, '\u2029');
  return JSON.stringify(text).length + 5 * escaped;
}

/**
 * The longest prefix of `text`, in whole code points and at least one, whose escaped form (quotes
 * included) fits in `room` units; `undefined` when not even one fits. One pass, stopping at the
 * first code point that does not fit: each code point's escape is independent of its neighbours,
 * so the length is additive (a binary search over native stringify cost ~1.2 ms more, cold).
 */
export function longestEscapedPrefix(
  text: string,
  room: number,
): { text: string; length: number } | undefined {
  let length = 2;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const pair = isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(end + 1));
    const cost = pair ? 2 : escapedUnitLength(unit);
    if (length + cost > room) break;
    length += cost;
    end += pair ? 2 : 1;
  }
  return end === 0 ? undefined : { text: text.slice(0, end), length };
}

/** What one UTF-16 unit that is not half of a pair becomes in the rendered JSON. */
function escapedUnitLength(unit: number): number {
  // `"` and `\`, and the five controls with a short escape (\b \t \n \f \r).
  if (unit === 0x22 || unit === 0x5c || unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13)
    return 2;
  // Other controls and lone surrogates (JSON.stringify), and the renderer's five: `\uXXXX`.
  if (unit < 0x20 || (unit >= 0xd800 && unit <= 0xdfff)) return 6;
  if (unit === 0x3c || unit === 0x3e || unit === 0x5b || unit === 0x2028 || unit === 0x2029) return 6;
  return 1;
}

function countOf(text: string, char: string): number {
  let count = 0;
  for (let index = text.indexOf(char); index !== -1; index = text.indexOf(char, index + 1)) count++;
  return count;
}
