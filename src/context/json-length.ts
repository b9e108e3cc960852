// Serialized length of a JSON string as the renderer emits it.

/** Length of `JSON.stringify(text)` once every `<`, `>`, U+2028 and U+2029 has become a six-character `\uXXXX` escape. */
export function escapedJsonLength(text: string): number {
  // Native stringify is far cheaper than a per-unit loop in a cold, short-lived hook process.
  const escaped = countOf(text, '<') + countOf(text, '>') + countOf(text, '\u2028') + countOf(text, '\u2029');
  return JSON.stringify(text).length + 5 * escaped;
}

function countOf(text: string, char: string): number {
  let count = 0;
  for (let index = text.indexOf(char); index !== -1; index = text.indexOf(char, index + 1)) count++;
  return count;
}
