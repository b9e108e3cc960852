// Code points a terminal may draw as nothing or as something else (src/text/hidden-code-points.ts,
// generated from Unicode data: Default_Ignorable_Code_Point, controls, format, private use, line and
// paragraph separators, U+2800), and the white space, controls and format characters memory content
// needs something beyond. A binary search over each range table: a hook never compiles a `\p{…}`
// class for them (README, "Performance").
import { HIDDEN_RANGES, INVISIBLE_RANGES } from './hidden-code-points.js';

/** True when `codePoint` is in `ranges` (inclusive `start, end` pairs, ascending): a binary search. */
export function inRanges(ranges: readonly number[], codePoint: number): boolean {
  let low = 0;
  let high = ranges.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (codePoint < ranges[2 * middle]!) high = middle - 1;
    else if (codePoint > ranges[2 * middle + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

/** True when `codePoint` is in the hidden table. */
export function isHiddenCodePoint(codePoint: number): boolean {
  return inRanges(HIDDEN_RANGES, codePoint);
}

/** True for white space, controls and format characters (`[\p{White_Space}\p{Cc}\p{Cf}]`, as a table). */
export function isInvisibleCodePoint(codePoint: number): boolean {
  return inRanges(INVISIBLE_RANGES, codePoint);
}

// Tab, newline and printable ASCII: nothing in them is hidden, and almost all real text is only them.
const PLAIN = /^[\t\n\x20-\x7e]*$/;

/** The distinct hidden code points of `text`, in the order they first appear. */
export function hiddenCodePoints(text: string): number[] {
  if (PLAIN.test(text)) return [];
  const found: number[] = [];
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (isHiddenCodePoint(codePoint) && !found.includes(codePoint)) found.push(codePoint);
  }
  return found;
}

/** `U+FE0F`: how a code point is named in our messages. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `U+FE0F, U+E0041 and 3 more`: at most `max` labels, then a count. */
export function describeCodePoints(codePoints: readonly number[], max = 8): string {
  const shown = codePoints.slice(0, max).map(codePointLabel).join(', ');
  return codePoints.length > max ? `${shown} and ${codePoints.length - max} more` : shown;
}
