// Renders memory content for the PreToolUse confirmation line (runtimes.md, "Write-confirmation hook").
// The user approves exactly what is stored, so nothing may hide, reorder or break the displayed text.

// DEL and C1 controls, line/paragraph separators, and every format character (bidi controls,
// zero-width characters, BOM, astral Cf such as U+110BD): invisible or layout-changing in a terminal.
const HIDDEN = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

/** `JSON.stringify(content)` with every hidden character escaped per UTF-16 unit; `JSON.parse` restores `content`. */
export function renderContentForDisplay(content: string): string {
  return JSON.stringify(content).replace(HIDDEN, escapeUnits);
}

function escapeUnits(match: string): string {
  let escaped = '';
  for (let index = 0; index < match.length; index++) {
    escaped += '\\u' + match.charCodeAt(index).toString(16).padStart(4, '0');
  }
  return escaped;
}
