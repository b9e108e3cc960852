// Auto-recall query sanitizer (docs/upstream-differences.md, "Query sanitizer"): a conservative,
// best-effort transform that lowers the risk of forwarding a secret to the provider. It is NOT DLP.
//
// What it removes is, exactly, what upstream's sanitizer removes plus the declared additions. So
// upstream's passes run here in upstream's order with upstream's boundaries, each replacing what it
// matches with one space, while the additions are only *marked* on the text upstream's rule 4 sees:
// marking never changes the text a later upstream pass reads, so an addition can neither hide text
// an upstream match needs nor hand it a left-over header name to swallow the next word with.
// Every step is linear: the rules are hand-written scanners that emulate the upstream regular
// expressions' leftmost, greedy matching (the differential suite in test/unit/parity runs them
// against those expressions); only the header rule is a regex, behind a fixed literal.
import { takeCodePoints } from './codepoints.js';

const MAX_INPUT_CODE_POINTS = 4096;
const MAX_QUERY_CODE_POINTS = 512;

// "Horizontal space": tab plus every Unicode space separator (Zs), i.e. PCRE's `\h` without U+180E.
const HSPACE = '[\\t \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]';
// Addition 4a, the header form, removed whole: a `Basic` user:password is too short for the
// long-token rule, and upstream's Bearer rule leaves `Authorization:` behind.
// No `u` flag on purpose: with `iu`, `[A-Za-z]`/`k`/`s` would also match U+212A and U+017F.
const AUTH_HEADER = new RegExp(
  `["']?authorization["']?${HSPACE}*[:=]${HSPACE}*["']?[A-Za-z][A-Za-z0-9_-]*${HSPACE}+[A-Za-z0-9._~+/=-]+["']?`,
  'gi',
);

const UPSTREAM_KEYWORDS = ['api_key', 'api-key', 'apikey', 'token', 'password', 'secret'];
// Addition to rule 5: upstream's grammar, with `authorization` as the keyword.
const ADDED_KEYWORDS = ['authorization'];

/**
 * Turns a submitted prompt into a search query, or `undefined` when nothing is left to search for.
 * `credential` is the provider credential value; every exact occurrence is removed.
 */
export function sanitizeQuery(input: string, credential?: string): string | undefined {
  const known = credential !== undefined && credential !== '' ? credential : undefined;
  // 1. Bound the work before anything else looks at the text.
  const base = input.length > MAX_INPUT_CODE_POINTS ? takeCodePoints(input, MAX_INPUT_CODE_POINTS) : input;
  const draft = new Draft(base);
  draft.remove(fencedCode(draft.text));
  // 3. The one secret we know for sure; removed even inside a word. An empty value would match everywhere.
  if (known !== undefined) draft.remove(occurrences(draft.text, known));
  // Declared additions, decided on the text upstream's rule 4 sees and only marked.
  draft.mark(spansOf(AUTH_HEADER, draft.text));
  draft.mark(assignments(draft.text, ADDED_KEYWORDS));
  // Upstream's passes 4–7, in upstream's order, each on the text the previous one left.
  draft.remove(bearerTokens(draft.text));
  draft.remove(assignments(draft.text, UPSTREAM_KEYWORDS));
  draft.remove(jwtShapes(draft.text));
  draft.remove(longTokens(draft.text));
  // Declared addition to 1: a credential cut in half by the bound would survive step 3 as a prefix.
  if (known !== undefined && base.length < input.length) {
    const at = input.indexOf(known, Math.max(0, base.length - known.length + 1));
    if (at !== -1 && at < base.length) draft.markBase(at, base.length);
  }
  // 8. JavaScript `\s` / `trim()` agree on the whitespace set.
  const text = draft.render().replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  return takeCodePoints(text, MAX_QUERY_CODE_POINTS);
}

/** Match positions as flat `[start, end, start, end, …]` pairs, ascending and non-overlapping. */
type Spans = number[];

/**
 * The bounded input with what has been removed so far. `text` is what the next pass reads: the
 * input with every removed span replaced by one space, as upstream's `replace(rule, ' ')` leaves
 * it. `removed` marks, per unit of the input, what the final query will not contain.
 */
class Draft {
  text: string;
  /** Input index where each unit of `text` begins; one extra entry holds the input length. */
  private starts: Int32Array;
  private readonly removed: Uint8Array;

  constructor(private readonly base: string) {
    this.text = base;
    this.starts = new Int32Array(base.length + 1);
    for (let i = 0; i <= base.length; i++) this.starts[i] = i;
    this.removed = new Uint8Array(base.length);
  }

  /** Marks the input behind `spans` (positions in `text`) as removed; `text` stays as it is. */
  mark(spans: Spans): void {
    for (let i = 0; i < spans.length; i += 2)
      this.markBase(this.starts[spans[i]!]!, this.starts[spans[i + 1]!]!);
  }

  markBase(from: number, to: number): void {
    this.removed.fill(1, from, to);
  }

  /** Marks `spans` and replaces each with one space in `text`. */
  remove(spans: Spans): void {
    if (spans.length === 0) return;
    this.mark(spans);
    const { text, starts } = this;
    let removedUnits = 0;
    for (let i = 0; i < spans.length; i += 2) removedUnits += spans[i + 1]! - spans[i]! - 1;
    const next = new Int32Array(starts.length - removedUnits);
    let result = '';
    let copied = 0;
    let at = 0;
    for (let i = 0; i < spans.length; i += 2) {
      const start = spans[i]!;
      result += text.slice(copied, start) + ' ';
      for (let j = copied; j <= start; j++) next[at++] = starts[j]!;
      copied = spans[i + 1]!;
    }
    result += text.slice(copied);
    for (let j = copied; j < starts.length; j++) next[at++] = starts[j]!;
    this.text = result;
    this.starts = next;
  }

  /** The input with every removed run replaced by one space. */
  render(): string {
    const { base, removed } = this;
    let result = '';
    let copied = 0;
    let i = 0;
    while (i < base.length) {
      if (removed[i] === 0) {
        i++;
        continue;
      }
      result += base.slice(copied, i) + ' ';
      while (i < base.length && removed[i] === 1) i++;
      copied = i;
    }
    return result + base.slice(copied);
  }
}

function spansOf(pattern: RegExp, text: string): Spans {
  const spans: Spans = [];
  for (const match of text.matchAll(pattern)) spans.push(match.index, match.index + match[0].length);
  return spans;
}

/** Step 3: every non-overlapping occurrence, left to right (what `replaceAll` replaces). */
function occurrences(text: string, needle: string): Spans {
  const spans: Spans = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    spans.push(at, at + needle.length);
  }
  return spans;
}

/** Step 2: a ``` or ~~~ fence through the next identical fence, or through the end when unterminated. */
function fencedCode(text: string): Spans {
  const spans: Spans = [];
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
    spans.push(index, end);
    index = end;
  }
  return spans;
}

/**
 * Step 4b, upstream's `/\bbearer\s+[A-Za-z0-9._~+/=-]+/gi`: any whitespace after the word, line
 * breaks included; a word character right before it (`xBearer`) means no match.
 */
function bearerTokens(text: string): Spans {
  const spans: Spans = [];
  let index = 0;
  while (index < text.length) {
    if (startsBearer(text, index) && !isWordUnit(text.charCodeAt(index - 1))) {
      let cursor = index + 6;
      while (isWhitespace(text.charCodeAt(cursor))) cursor++;
      const value = cursor;
      while (isTokenValueUnit(text.charCodeAt(cursor))) cursor++;
      if (value > index + 6 && cursor > value) {
        spans.push(index, cursor);
        index = cursor;
        continue;
      }
    }
    index++;
  }
  return spans;
}

/** ASCII-case-insensitive `bearer` at `index` (`| 0x20` folds only A–Z onto a–z for these letters). */
function startsBearer(text: string, index: number): boolean {
  return (
    (text.charCodeAt(index) | 0x20) === 0x62 &&
    (text.charCodeAt(index + 1) | 0x20) === 0x65 &&
    (text.charCodeAt(index + 2) | 0x20) === 0x61 &&
    (text.charCodeAt(index + 3) | 0x20) === 0x72 &&
    (text.charCodeAt(index + 4) | 0x20) === 0x65 &&
    (text.charCodeAt(index + 5) | 0x20) === 0x72
  );
}

/**
 * Step 5: `[quote]identifier[quote] [:=] [value]` where the identifier that owns the separator
 * contains one of `keywords`; around the separator any whitespace but CR and LF. Scanning whole
 * identifiers (never a keyword inside a longer phrase) keeps "token budget: large" intact:
 * `budget` owns that colon.
 */
function assignments(text: string, keywords: readonly string[]): Spans {
  const spans: Spans = [];
  let matchedUpTo = 0;
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
    while (isSeparatorSpace(text.charCodeAt(cursor))) cursor++;
    const separator = text.charCodeAt(cursor);
    if (separator !== 0x3a && separator !== 0x3d) continue;
    if (!containsKeyword(text.slice(start, end), keywords)) continue;
    cursor++;
    while (isSeparatorSpace(text.charCodeAt(cursor))) cursor++;
    cursor = endOfValue(text, cursor);
    // Take the opening quote too, unless the previous match already consumed it.
    const from = start > matchedUpTo && isQuote(text.charCodeAt(start - 1)) ? start - 1 : start;
    spans.push(from, cursor);
    matchedUpTo = cursor;
    index = cursor;
  }
  return spans;
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

function containsKeyword(identifier: string, keywords: readonly string[]): boolean {
  const lower = identifier.toLowerCase();
  return keywords.some((keyword) => lower.includes(keyword));
}

/**
 * For `\b`-bounded runs of `[A-Za-z0-9_-]`: `runEnd[i]` is where the run containing `i` ends (`i`
 * itself outside a run), `lastBoundary[i]` the last word boundary at or before `i` (-1: none).
 * `\b` sees only `[A-Za-z0-9_]` as word characters, so a `-` next to a space is no boundary.
 */
function runTables(text: string): { runEnd: Int32Array; lastBoundary: Int32Array } {
  const n = text.length;
  const runEnd = new Int32Array(n + 1);
  runEnd[n] = n;
  for (let i = n - 1; i >= 0; i--) runEnd[i] = isTokenUnit(text.charCodeAt(i)) ? runEnd[i + 1]! : i;
  const lastBoundary = new Int32Array(n + 1);
  let last = -1;
  let before = false;
  for (let i = 0; i <= n; i++) {
    const after = isWordUnit(text.charCodeAt(i));
    if (before !== after) last = i;
    lastBoundary[i] = last;
    before = after;
  }
  return { runEnd, lastBoundary };
}

function isBoundary(text: string, index: number): boolean {
  return isWordUnit(text.charCodeAt(index - 1)) !== isWordUnit(text.charCodeAt(index));
}

/**
 * Step 6, upstream's `/\b[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g`. The first two
 * segments must reach their dot; the greedy third one ends at its run's last boundary, 8 or more in.
 */
function jwtShapes(text: string): Spans {
  const spans: Spans = [];
  const { runEnd, lastBoundary } = runTables(text);
  let index = 0;
  while (index < text.length) {
    if (isTokenUnit(text.charCodeAt(index)) && isBoundary(text, index)) {
      const firstEnd = runEnd[index]!;
      const second = firstEnd + 1;
      if (firstEnd - index >= 8 && text.charCodeAt(firstEnd) === 0x2e && second <= text.length) {
        const secondEnd = runEnd[second]!;
        const third = secondEnd + 1;
        if (secondEnd - second >= 8 && text.charCodeAt(secondEnd) === 0x2e && third <= text.length) {
          const end = lastBoundary[runEnd[third]!]!;
          if (end >= third + 8) {
            spans.push(index, end);
            index = end;
            continue;
          }
        }
      }
    }
    index++;
  }
  return spans;
}

/** Step 7, upstream's `/\b[A-Za-z0-9_-]{32,}\b/g`: from a boundary to its run's last boundary, 32 or more in. */
function longTokens(text: string): Spans {
  const spans: Spans = [];
  const { runEnd, lastBoundary } = runTables(text);
  let index = 0;
  while (index < text.length) {
    if (isTokenUnit(text.charCodeAt(index)) && isBoundary(text, index)) {
      const end = lastBoundary[runEnd[index]!]!;
      if (end - index >= 32) {
        spans.push(index, end);
        index = end;
        continue;
      }
    }
    index++;
  }
  return spans;
}

/** `[A-Za-z0-9_]`, the regex word characters (`\w` without the `u` flag). NaN (out of range) is not. */
function isWordUnit(unit: number): boolean {
  return (
    (unit >= 0x61 && unit <= 0x7a) ||
    (unit >= 0x41 && unit <= 0x5a) ||
    (unit >= 0x30 && unit <= 0x39) ||
    unit === 0x5f
  );
}

/** `[A-Za-z0-9_-]` */
function isTokenUnit(unit: number): boolean {
  return isWordUnit(unit) || unit === 0x2d;
}

/** `[A-Za-z0-9_.-]` */
function isIdentifierUnit(unit: number): boolean {
  return isTokenUnit(unit) || unit === 0x2e;
}

/** `[A-Za-z0-9._~+/=-]`: an RFC 6750 b64token plus `=`. */
function isTokenValueUnit(unit: number): boolean {
  return isIdentifierUnit(unit) || unit === 0x7e || unit === 0x2b || unit === 0x2f || unit === 0x3d;
}

function isQuote(unit: number): boolean {
  return unit === 0x22 || unit === 0x27;
}

/** JavaScript's `\s`: tab, VT, FF, space, NBSP, U+1680, U+2000–U+200A, line terminators, U+202F, U+205F, U+3000, U+FEFF. */
function isWhitespace(unit: number): boolean {
  return (
    (unit >= 0x09 && unit <= 0x0d) ||
    unit === 0x20 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/** Upstream's `[^\S\r\n]` around an assignment's separator: any whitespace but a line break (CR, LF). */
function isSeparatorSpace(unit: number): boolean {
  return unit !== 0x0a && unit !== 0x0d && isWhitespace(unit);
}
