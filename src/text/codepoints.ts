// Code-point helpers shared by the sanitizer, the renderer and the content rules.
// A lone surrogate counts as one code point (as `for...of` does); a valid pair is never split.

export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

export function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** UTF-16 length of the code point that starts at `index` (2 for a valid pair, else 1). */
export function codePointWidthAt(text: string, index: number): 1 | 2 {
  return isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1;
}

/** Length in Unicode code points (an astral character counts once, as does a lone surrogate). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

// One `^[\s\S]{0,n}`/u per limit: with the `u` flag a pair is one match unit and a lone surrogate
// another, and the native matcher beats a JavaScript loop by ~15x in a cold hook process.
const prefixPatterns = new Map<number, RegExp>();

/** The first `max` code points of `text`, without looking past them (inputs may be huge). */
export function takeCodePoints(text: string, max: number): string {
  // Fewer units than the limit means fewer code points too: nothing to cut.
  if (text.length <= max) return text;
  let pattern = prefixPatterns.get(max);
  if (pattern === undefined) {
    pattern = new RegExp(`^[\\s\\S]{0,${max}}`, 'u');
    prefixPatterns.set(max, pattern);
  }
  // Always matches (zero repetitions at least); greedy with nothing after it, so it never backtracks.
  return pattern.exec(text)![0];
}
