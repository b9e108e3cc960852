// Auto-recall query sanitizer (runtimes.md, "Query sanitizer"): a conservative, best-effort
// transform that lowers the risk of forwarding a secret to the provider. It is NOT DLP.
// Every step runs in linear time: scanners are hand-written where a regex could backtrack, and the
// remaining regexes only have quantifiers over disjoint classes behind a fixed literal or lookbehind.
import { takeCodePoints } from './codepoints.js';

const MAX_INPUT_CODE_POINTS = 4096;
const MAX_QUERY_CODE_POINTS = 512;

// "Horizontal space": tab plus every Unicode space separator (Zs), i.e. PCRE's `\h` without U+180E.
const HSPACE = '[\\t \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]';
// Characters of a credential value in an authorization header (RFC 6750 b64token plus `=`).
const TOKEN_RUN = '[A-Za-z0-9._~+/=-]+';

// 4a. Header form, removed whole: a `Basic` user:password is too short for the long-token rule, and
// a left-over `Authorization:` would make the assignment rule swallow the next word.
// No `u` flag on purpose: with `iu`, `[A-Za-z]`/`k`/`s` would also match U+212A and U+017F.
const AUTH_HEADER = new RegExp(
  `["']?authorization["']?${HSPACE}*[:=]${HSPACE}*["']?[A-Za-z][A-Za-z0-9_-]*${HSPACE}+${TOKEN_RUN}["']?`,
  'gi',
);
// 4b. A bare bearer credential; a bare `Basic` is left alone because "basic knowledge" is prose.
const BARE_BEARER = new RegExp(`bearer${HSPACE}+${TOKEN_RUN}`, 'gi');

// Word boundary for steps 6/7: the match is neither preceded nor followed by `[A-Za-z0-9_-]`.
// 6. JWT-shaped: three dot-separated segments of 8+ URL-safe characters.
const JWT = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?![A-Za-z0-9_-])/g;
// 7. Long opaque tokens (API keys, hashes, session ids).
const LONG_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;

const SECRET_KEYWORDS = ['api_key', 'api-key', 'apikey', 'token', 'password', 'secret', 'authorization'];

/**
 * Turns a submitted prompt into a search query, or `undefined` when nothing is left to search for.
 * `credential` is the provider credential value; every exact occurrence is removed.
 */
export function sanitizeQuery(input: string, credential?: string): string | undefined {
  // 1. Bound the work before anything else looks at the text.
  let text = input.length > MAX_INPUT_CODE_POINTS ? boundInput(input, credential) : input;
  text = removeFencedCode(text);
  // 3. The one secret we know for sure; removed even inside a word. An empty value would match everywhere.
  if (credential !== undefined && credential !== '') text = text.replaceAll(credential, ' ');
  text = text.replace(AUTH_HEADER, ' ').replace(BARE_BEARER, ' ');
  text = removeSecretAssignments(text);
  text = text.replace(JWT, ' ').replace(LONG_TOKEN, ' ');
  // 8. JavaScript `\s` / `trim()` agree on the whitespace set.
  text = text.replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  return takeCodePoints(text, MAX_QUERY_CODE_POINTS);
}

/** Step 1: the first 4096 code points, never ending inside an occurrence of the credential. */
function boundInput(input: string, credential: string | undefined): string {
  const text = takeCodePoints(input, MAX_INPUT_CODE_POINTS);
  if (credential === undefined || credential === '' || text.length === input.length) return text;
  // A credential cut in half here would survive step 3 as a prefix: end the text where it begins.
  const at = input.indexOf(credential, Math.max(0, text.length - credential.length + 1));
  return at !== -1 && at < text.length ? text.slice(0, at) : text;
}

/** Step 2: a ``` or ~~~ fence through the next identical fence, or through the end when unterminated. */
function removeFencedCode(text: string): string {
  let result = '';
  let copied = 0;
  let index = 0;
  while (index + 3 <= text.length) {
    const unit = text.charCodeAt(index);
    const opensFence =
      (unit === 0x60 || unit === 0x7e) &&
      text.charCodeAt(index + 1) === unit &&
      text.charCodeAt(index + 2) === unit;
    if (!opensFence) {
      index++;
      continue;
    }
    // Code blocks are where pasted secrets, configs and logs live: drop them whole.
    const close = text.indexOf(unit === 0x60 ? '```' : '~~~', index + 3);
    const end = close === -1 ? text.length : close + 3;
    result += text.slice(copied, index) + ' ';
    copied = end;
    index = end;
  }
  return result + text.slice(copied);
}

/**
 * Step 5: `[quote]identifier[quote] [:=] [value]` where the identifier that owns the separator
 * contains a secret keyword. Scanning whole identifiers (never a keyword inside a longer phrase)
 * is what keeps "token budget: large" intact: `budget` owns that colon.
 */
function removeSecretAssignments(text: string): string {
  let result = '';
  let copied = 0;
  let index = 0;
  while (index < text.length) {
    if (!isIdentifierUnit(text.charCodeAt(index))) {
      index++;
      continue;
    }
    const start = index;
    while (index < text.length && isIdentifierUnit(text.charCodeAt(index))) index++;
    const end = index;
    let cursor = end;
    if (isQuote(text.charCodeAt(cursor))) cursor++;
    while (isHorizontalSpace(text.charCodeAt(cursor))) cursor++;
    const separator = text.charCodeAt(cursor);
    if (separator !== 0x3a && separator !== 0x3d) continue;
    if (!containsSecretKeyword(text.slice(start, end))) continue;
    cursor++;
    while (isHorizontalSpace(text.charCodeAt(cursor))) cursor++;
    cursor = endOfValue(text, cursor);
    // Take the opening quote too, unless an earlier removal already consumed it.
    const from = start > copied && isQuote(text.charCodeAt(start - 1)) ? start - 1 : start;
    result += text.slice(copied, from) + ' ';
    copied = cursor;
    index = cursor;
  }
  return result + text.slice(copied);
}

/** End of an assignment value starting at `index`: a one-line quoted string, else a run up to whitespace, `,` or `;`. */
function endOfValue(text: string, index: number): number {
  const quote = text.charCodeAt(index);
  if (isQuote(quote)) {
    // Stops at a line break, so each unterminated quote costs at most one line and no rescans.
    for (let cursor = index + 1; cursor < text.length; cursor++) {
      const unit = text.charCodeAt(cursor);
      if (unit === quote) return cursor + 1;
      if (unit === 0x0a || unit === 0x0d) break;
    }
  }
  let cursor = index;
  while (cursor < text.length) {
    const unit = text.charCodeAt(cursor);
    if (isWhitespace(unit) || unit === 0x2c || unit === 0x3b) break;
    cursor++;
  }
  return cursor;
}

function containsSecretKeyword(identifier: string): boolean {
  const lower = identifier.toLowerCase();
  return SECRET_KEYWORDS.some((keyword) => lower.includes(keyword));
}

/** `[A-Za-z0-9_.-]` */
function isIdentifierUnit(unit: number): boolean {
  return (
    (unit >= 0x61 && unit <= 0x7a) ||
    (unit >= 0x41 && unit <= 0x5a) ||
    (unit >= 0x30 && unit <= 0x39) ||
    unit === 0x5f ||
    unit === 0x2e ||
    unit === 0x2d
  );
}

function isQuote(unit: number): boolean {
  return unit === 0x22 || unit === 0x27;
}

/** Same set as `HSPACE`. */
function isHorizontalSpace(unit: number): boolean {
  return (
    unit === 0x09 ||
    unit === 0x20 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

/** JavaScript's `\s`: horizontal space, line terminators, VT, FF and U+FEFF. */
function isWhitespace(unit: number): boolean {
  return (
    isHorizontalSpace(unit) ||
    (unit >= 0x0a && unit <= 0x0d) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0xfeff
  );
}
