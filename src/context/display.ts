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
  return escapeHiddenInJson(JSON.stringify(content));
}

/** JSON text with every hidden code point written as a `\uXXXX` escape per UTF-16 unit: the same value. */
export function escapeHiddenInJson(json: string): string {
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

/** The write confirmation's question, the line above the content. */
export const CONFIRMATION_QUESTION =
  'Store this exact text in the shared external memory? Content (JSON string):';

/** The write confirmation as the hook asks it: the question, then the content on one line. */
export function confirmationText(content: string): string {
  return `${CONFIRMATION_QUESTION}\n${renderContentForDisplay(content)}`;
}

// Printable ASCII takes one column; anything else is counted as two, the widest a terminal draws.
const columnsOf = (text: string): number => {
  let columns = 0;
  for (const char of text) columns += char.length === 1 && char >= ' ' && char <= '~' ? 1 : 2;
  return columns;
};

/**
 * The rows Qwen 0.24's confirmation needs to show `text` in a box `columns` wide: each `\n` line
 * word-wrapped as its MaxSizedBox lays text out (words and white-space runs; a run that ends a row is
 * dropped; a word wider than the box fills rows code point by code point). Never fewer rows than a
 * terminal needs: every code point beyond printable ASCII counts two columns.
 */
export function confirmationRows(text: string, columns: number): number {
  let rows = 0;
  for (const line of text.split('\n')) {
    let used = 0;
    let lineRows = 1;
    for (const token of line.split(/(\s+)/u)) {
      if (token === '') continue;
      const width = columnsOf(token);
      if (used > 0 && used + width > columns) {
        lineRows++;
        used = 0;
        if (/^\s+$/u.test(token)) continue;
      }
      if (width <= columns) {
        used += width;
        continue;
      }
      for (const char of token) {
        const charWidth = columnsOf(char);
        if (used + charWidth > columns) {
          lineRows++;
          used = 0;
        }
        used += charWidth;
      }
    }
    rows += lineRows;
  }
  return rows;
}
