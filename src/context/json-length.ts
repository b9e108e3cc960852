// Serialized length of a JSON string as the renderer emits it.

/** Length of `JSON.stringify(text)` once every `<` and `>` has become a six-character `\uXXXX` escape. */
export function escapedJsonLength(text: string): number {
  // Native stringify is far cheaper than a per-unit loop in a cold, short-lived hook process.
  return JSON.stringify(text).length + 5 * (countOf(text, '<') + countOf(text, '>'));
}

function countOf(text: string, char: string): number {
  let count = 0;
  for (let index = text.indexOf(char); index !== -1; index = text.indexOf(char, index + 1)) count++;
  return count;
}
