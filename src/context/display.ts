// Renders memory content for the PreToolUse confirmation line (docs/contracts.md, "Memory content").
// The user approves exactly what is stored, so nothing may hide, reorder or break the displayed text.
import { lazyRegExp } from '../startup/lazy-regexp.js';

// DEL and C1 controls, line/paragraph separators, and every format character (bidi controls,
// zero-width characters, BOM, astral Cf such as U+110BD): invisible or layout-changing in a terminal.
// Built on first need (a \p{…} class costs a hook's start to parse).
const hidden = lazyRegExp('[\\u007f-\\u009f\\u2028\\u2029\\p{Cf}]', 'gu');
// Every hidden character is U+007F or above: text without one has nothing to escape.
const ABOVE_ASCII = /[^\u0000-\u007e]/;

/** `JSON.stringify(content)` with every hidden character escaped per UTF-16 unit; `JSON.parse` restores `content`. */
export function renderContentForDisplay(content: string): string {
  const json = JSON.stringify(content);
  if (!ABOVE_ASCII.test(json)) return json;
  return json.replace(hidden(), escapeUnits);
}

function escapeUnits(match: string): string {
  let escaped = '';
  for (let index = 0; index < match.length; index++) {
    escaped += '\\u' + match.charCodeAt(index).toString(16).padStart(4, '0');
  }
  return escaped;
}
