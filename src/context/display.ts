// Renders memory content for the PreToolUse confirmation line (docs/contracts.md, "Memory content").
// The user approves exactly what is stored, so nothing may hide, reorder or break the displayed text.
import { isHiddenCodePoint } from '../text/hidden.js';

// Every hidden code point is U+007F or above once JSON has escaped the C0 controls.
const ABOVE_ASCII = /[^\u0000-\u007e]/;

/**
 * `JSON.stringify(content)` with every code point a terminal may draw as nothing or as something
 * else (src/text/hidden.ts: default-ignorable, control, format, private-use, separators, U+2800)
 * escaped per UTF-16 unit; `JSON.parse` restores `content`.
 */
export function renderContentForDisplay(content: string): string {
  const json = JSON.stringify(content);
  if (!ABOVE_ASCII.test(json)) return json;
  let shown = '';
  for (const char of json) {
    shown += isHiddenCodePoint(char.codePointAt(0)!) ? escapeUnits(char) : char;
  }
  return shown;
}

function escapeUnits(char: string): string {
  let escaped = '';
  for (let index = 0; index < char.length; index++) {
    escaped += '\\u' + char.charCodeAt(index).toString(16).padStart(4, '0');
  }
  return escaped;
}
