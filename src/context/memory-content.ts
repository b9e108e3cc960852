// Memory content validity, shared by the write-confirmation hook and the MCP server (runtimes.md).
// Valid content is stored byte-for-byte, so these rules are the only gate: no trimming, no normalising.
import { takeCodePoints } from './codepoints.js';

const MAX_CODE_POINTS = 4000;
// With the `u` flag a valid pair is one astral code point, so only unpaired surrogates are `Cs`.
const UNPAIRED_SURROGATE = /\p{Cs}/u;
// Something a human can actually see and confirm: not only spaces, controls or invisible format characters.
const VISIBLE = /[^\p{White_Space}\p{Cc}\p{Cf}]/u;

/** At most 4000 code points, no unpaired surrogate, and at least one visible character. */
export function isValidMemoryContent(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  // More code points than the limit exactly when the first 4000 do not cover the whole string.
  if (takeCodePoints(value, MAX_CODE_POINTS).length < value.length) return false;
  // A lone surrogate is not Unicode text: providers would store or re-encode it unpredictably.
  if (UNPAIRED_SURROGATE.test(value)) return false;
  return VISIBLE.test(value);
}
