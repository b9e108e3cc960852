// Memory content validity, shared by the write-confirmation hook and the MCP server (docs/contracts.md, "Memory content").
// Valid content is stored byte-for-byte, so these rules are the only gate: no trimming, no normalising.
import { CONFIRMATION_TEXT, MAX_MEMORY_CODE_POINTS } from '../base/limits.js';
import { takeCodePoints } from '../text/codepoints.js';
import { describeCodePoints, hiddenCodePoints, isInvisibleCodePoint } from '../text/hidden.js';
import { confirmationRows, confirmationText } from './display.js';

// Printable ASCII is visible by every definition below, and decides almost all real content at once.
const PRINTABLE_ASCII = /[!-~]/;

/** ES2024 String.prototype.isWellFormed (Node ≥ 20), not yet in this project's ES2023 typings. */
type WellFormed = string & { isWellFormed(): boolean };

/** At most 4000 code points, no unpaired surrogate, and at least one visible character. */
export function isValidMemoryContent(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // More code points than the limit exactly when the first 4000 do not cover the whole string.
  if (takeCodePoints(value, MAX_MEMORY_CODE_POINTS).length < value.length) return false;
  // A lone surrogate is not Unicode text: providers would store or re-encode it unpredictably.
  if (!(value as WellFormed).isWellFormed()) return false;
  if (PRINTABLE_ASCII.test(value)) return true;
  // Something a human can actually see and confirm: not only spaces, controls or invisible format
  // characters (`[^\p{White_Space}\p{Cc}\p{Cf}]` as a generated table: V8 builds a `\p{…}` literal's
  // class when it parses the script, ~5 M instructions at every write-hook start, used or not).
  for (const char of value) if (!isInvisibleCodePoint(char.codePointAt(0)!)) return true;
  return false;
}

/**
 * The code points of valid content that a terminal may draw as nothing or as something else
 * (src/text/hidden.ts). Qwen's own confirmation shows a tool's raw arguments, so content holding
 * one could be approved unseen: both the write-confirmation hook and the MCP tool refuse it.
 */
export function hiddenInMemoryContent(content: string): number[] {
  return hiddenCodePoints(content);
}

/** Why such content is refused, naming the code points (ASCII only: safe on any terminal). */
export function hiddenContentReason(codePoints: readonly number[]): string {
  return (
    `the memory content holds code points a terminal may draw as nothing or as something else ` +
    `(${describeCodePoints(codePoints)}), so the text shown for approval would not be what is stored; ` +
    'nothing was stored: write it without them'
  );
}

/**
 * The rows the write confirmation of valid content takes (src/context/display.ts) when they are more
 * than a CONFIRMATION_TEXT terminal shows, else 0. Qwen hides the rest of a longer question behind
 * "... last N lines hidden ..." with "Yes" preselected, so both the hook and the MCP tool refuse it.
 */
export function confirmationOverflow(content: string): number {
  const rows = confirmationRows(confirmationText(content), CONFIRMATION_TEXT.columns);
  return rows > CONFIRMATION_TEXT.rows ? rows : 0;
}

/** Why such content is refused (never the content itself). */
export function tooLongToConfirmReason(rows: number): string {
  return (
    `the memory content needs ${rows} rows of the confirmation at ${CONFIRMATION_TEXT.columns} columns, ` +
    `more than the ${CONFIRMATION_TEXT.rows} an ${CONFIRMATION_TEXT.terminal} terminal shows in full, so the ` +
    'user could approve text they did not see; nothing was stored: store it as shorter memories'
  );
}
