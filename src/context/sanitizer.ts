// Auto-recall query sanitizer (docs/upstream-differences.md, "Query sanitizer"): a conservative,
// best-effort transform that lowers the risk of forwarding a secret to the provider. It is NOT DLP.
//
// What it removes is, exactly, what upstream's sanitizer removes plus the declared additions. So
// upstream's passes run here in upstream's order with upstream's boundaries, each replacing what it
// matches with one space, while the additions are only *marked* on the text upstream's rule 4 sees:
// marking never changes the text a later upstream pass reads, so an addition can neither hide text
// an upstream match needs nor hand it a left-over header name to swallow the next word with.
// Every step is linear, and cheap on a cold start (the hook calls this once per process, before the
// JIT has warmed up): native regexes whose quantifiers cannot backtrack into each other find the
// candidates, and JavaScript only looks at the few units around them. Where a rule's regex would
// backtrack (`\b` inside long runs), a scanner emulates its leftmost-greedy matching exactly; the
// differential suite (test/unit/parity) runs every rule against the plain upstream expressions.
import { RECALL_QUERY_CODE_POINTS, SANITIZER_INPUT_CODE_POINTS } from '../base/limits.js';
import { takeCodePoints } from '../text/codepoints.js';

// "Horizontal space": tab plus every Unicode space separator (Zs), i.e. PCRE's `\h` without U+180E.
const HSPACE = '[\\t \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]';
// Addition 4a, the header form, removed whole: a `Basic` user:password is too short for the
// long-token rule, and upstream's Bearer rule leaves `Authorization:` behind.
// No `u` flag on purpose: with `iu`, `[A-Za-z]`/`k`/`s` would also match U+212A and U+017F.
const AUTH_HEADER = new RegExp(
  `["']?authorization["']?${HSPACE}*[:=]${HSPACE}*["']?[A-Za-z][A-Za-z0-9_-]*${HSPACE}+[A-Za-z0-9._~+/=-]+["']?`,
  'gi',
);

// Upstream's 4b, `/\bbearer\s+[A-Za-z0-9._~+/=-]+/gi`: any whitespace after the word, line breaks
// too. `\b` before a word character is "no word character before it", said as a lookbehind.
const BEARER = /(?<![A-Za-z0-9_])bearer\s+[A-Za-z0-9._~+/=-]+/gi;
// Candidates for upstream's 6 and 7: a run of 8+ token units right before a dot (a JWT's first
// segment is a suffix of one), and a whole run of 32+. Anchored at a run's start, so linear.
const SEGMENT_BEFORE_DOT = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{8,}(?=\.)/g;
const LONG_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}/g;

// Identifiers of rule 5, `[A-Za-z0-9_.-]`, whole runs (greedy from the leftmost unit: maximal).
const IDENTIFIER_RUN = /[A-Za-z0-9_.-]+/g;

const UPSTREAM_KEYWORDS = ['api_key', 'api-key', 'apikey', 'token', 'password', 'secret'];
// Addition to rule 5: upstream's grammar, with `authorization` as the keyword.
const ADDED_KEYWORDS = ['authorization'];
// No keyword anywhere, no assignment: a native test spares the scan (and 4a needs the word too).
const UPSTREAM_KEYWORD = /api_key|api-key|apikey|token|password|secret/i;
const ADDED_KEYWORD = /authorization/i;

/**
 * Turns a submitted prompt into a search query, or `undefined` when nothing is left to search for.
 * `credential` is the provider credential value; every exact occurrence is removed.
 */
export function sanitizeQuery(input: string, credential?: string): string | undefined {
  const known = credential !== undefined && credential !== '' ? credential : undefined;
  // 1. Bound the work before anything else looks at the text.
  const base =
    input.length > SANITIZER_INPUT_CODE_POINTS ? takeCodePoints(input, SANITIZER_INPUT_CODE_POINTS) : input;
  // Declared addition to 1: a credential cut in half by the bound would survive step 3 as a prefix.
  let cutAt = -1;
  if (known !== undefined && base.length < input.length) {
    const at = input.indexOf(known, Math.max(0, base.length - known.length + 1));
    if (at !== -1 && at < base.length) cutAt = at;
  }
  // Only an addition needs to know where the text came from; without one, this is upstream's pipeline.
  const draft = new Draft(base, cutAt !== -1 || ADDED_KEYWORD.test(base));
  draft.remove(fencedCode(draft.text));
  // 3. The one secret we know for sure; removed even inside a word. An empty value would match everywhere.
  if (known !== undefined) draft.remove(occurrences(draft.text, known));
  // Declared additions, decided on the text upstream's rule 4 sees and only marked.
  if (ADDED_KEYWORD.test(draft.text)) {
    draft.mark(spansOf(AUTH_HEADER, draft.text));
    draft.mark(assignments(draft.text, ADDED_KEYWORDS));
  }
  // Upstream's passes 4–7, in upstream's order, each on the text the previous one left.
  draft.removeAll(BEARER);
  if (UPSTREAM_KEYWORD.test(draft.text)) draft.remove(assignments(draft.text, UPSTREAM_KEYWORDS));
  draft.remove(jwtShapes(draft.text));
  draft.remove(longTokens(draft.text));
  if (cutAt !== -1) draft.markInput(cutAt, base.length);
  // 8. JavaScript `\s` / `trim()` agree on the whitespace set.
  const text = draft.render().replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  return takeCodePoints(text, RECALL_QUERY_CODE_POINTS);
}

/** Match positions as flat `[start, end, start, end, …]` pairs, ascending and non-overlapping. */
type Spans = number[];

/**
 * The bounded input with what has been removed so far. `text` is what the next pass reads: the
 * input with every removed span replaced by one space, as upstream's `replace(rule, ' ')` leaves
 * it. When `tracked`, each of those spaces is remembered with the input range it stands for, and
 * every removal or mark as an input range (nothing here is per unit of the input); untracked, the
 * query is simply `text`, which is the same when nothing is only marked.
 */
class Draft {
  text: string;
  /** The replacement spaces of `text`, ascending: their index, the input range, and `shift` (input − text index) after them. */
  private at: number[] = [];
  private from: number[] = [];
  private to: number[] = [];
  private shift: number[] = [];
  /** Removed input ranges, flat pairs in no order. */
  private readonly removed: number[] = [];

  constructor(
    private readonly base: string,
    private readonly tracked: boolean,
  ) {
    this.text = base;
  }

  /** Input range `[start, end)` behind the text span `[start, end)`. */
  private inputRange(start: number, end: number): [number, number] {
    return [this.locate(start, true), this.locate(end - 1, false)];
  }

  /** Where the text unit at `index` begins (`begin`) or ends in the input. */
  private locate(index: number, begin: boolean): number {
    // Replacements before or at `index`.
    let low = 0;
    let high = this.at.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.at[mid]! <= index) low = mid + 1;
      else high = mid;
    }
    const last = low - 1;
    if (last >= 0 && this.at[last] === index) return begin ? this.from[last]! : this.to[last]!;
    const input = index + (last >= 0 ? this.shift[last]! : 0);
    return begin ? input : input + 1;
  }

  /** Marks the input behind `spans` (positions in `text`) as removed; `text` stays as it is. Tracked only. */
  mark(spans: Spans): void {
    if (!this.tracked) throw new Error('an untracked draft cannot mark');
    for (let i = 0; i < spans.length; i += 2) this.removed.push(...this.inputRange(spans[i]!, spans[i + 1]!));
  }

  markInput(from: number, to: number): void {
    this.removed.push(from, to);
  }

  /** Every match of a global `pattern`, as `remove` does. */
  removeAll(pattern: RegExp): void {
    if (this.tracked) this.remove(spansOf(pattern, this.text));
    else this.text = this.text.replace(pattern, ' ');
  }

  /** Marks `spans` and replaces each with one space in `text`. */
  remove(spans: Spans): void {
    if (spans.length === 0) return;
    if (!this.tracked) {
      let result = '';
      let copied = 0;
      for (let i = 0; i < spans.length; i += 2) {
        result += this.text.slice(copied, spans[i]) + ' ';
        copied = spans[i + 1]!;
      }
      this.text = result + this.text.slice(copied);
      return;
    }
    const { text, at, from, to } = this;
    const next = { at: [] as number[], from: [] as number[], to: [] as number[] };
    let result = '';
    let copied = 0;
    let shrink = 0;
    let old = 0;
    const keep = (index: number, input: [number, number]) => {
      next.at.push(index);
      next.from.push(input[0]);
      next.to.push(input[1]);
    };
    for (let i = 0; i < spans.length; i += 2) {
      const start = spans[i]!;
      const end = spans[i + 1]!;
      const input = this.inputRange(start, end);
      this.removed.push(input[0], input[1]);
      for (; old < at.length && at[old]! < start; old++) keep(at[old]! - shrink, [from[old]!, to[old]!]);
      // Earlier replacements inside the span are part of the new one's range.
      while (old < at.length && at[old]! < end) old++;
      result += text.slice(copied, start) + ' ';
      keep(start - shrink, input);
      shrink += end - start - 1;
      copied = end;
    }
    for (; old < at.length; old++) keep(at[old]! - shrink, [from[old]!, to[old]!]);
    this.text = result + text.slice(copied);
    this.at = next.at;
    this.from = next.from;
    this.to = next.to;
    this.shift = next.at.map((index, i) => next.to[i]! - index - 1);
  }

  /** The input with every removed run (overlapping or touching ranges) replaced by one space. */
  render(): string {
    if (!this.tracked) return this.text;
    const ranges: [number, number][] = [];
    for (let i = 0; i < this.removed.length; i += 2) ranges.push([this.removed[i]!, this.removed[i + 1]!]);
    ranges.sort((a, b) => a[0] - b[0]);
    let result = '';
    let copied = 0;
    let runEnd = -1;
    for (const [start, end] of ranges) {
      if (start > runEnd) {
        // A new run: what lies before it, then its one space.
        result += this.base.slice(copied, start) + ' ';
        runEnd = end;
      } else {
        runEnd = Math.max(runEnd, end);
      }
      copied = runEnd;
    }
    return result + this.base.slice(copied);
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
  while (index < text.length) {
    // The earliest fence opener of either kind (native searches, no loop over every unit).
    const backticks = text.indexOf('```', index);
    const tildes = text.indexOf('~~~', index);
    const open = backticks === -1 ? tildes : tildes === -1 ? backticks : Math.min(backticks, tildes);
    if (open === -1) break;
    // Code blocks are where pasted secrets, configs and logs live: drop them whole.
    const close = text.indexOf(open === backticks ? '```' : '~~~', open + 3);
    const end = close === -1 ? text.length : close + 3;
    spans.push(open, end);
    index = end;
  }
  return spans;
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
  // Whole identifier runs, found natively; a match resumes the search after its value.
  const runs = IDENTIFIER_RUN;
  runs.lastIndex = 0;
  for (let run = runs.exec(text); run !== null; run = runs.exec(text)) {
    const start = run.index;
    const end = start + run[0].length;
    let cursor = end;
    if (isQuote(text.charCodeAt(cursor))) cursor++;
    while (isSeparatorSpace(text.charCodeAt(cursor))) cursor++;
    const separator = text.charCodeAt(cursor);
    if (separator !== 0x3a && separator !== 0x3d) continue;
    if (!containsKeyword(run[0], keywords)) continue;
    cursor++;
    while (isSeparatorSpace(text.charCodeAt(cursor))) cursor++;
    cursor = endOfValue(text, cursor);
    // Take the opening quote too, unless the previous match already consumed it.
    const from = start > matchedUpTo && isQuote(text.charCodeAt(start - 1)) ? start - 1 : start;
    spans.push(from, cursor);
    matchedUpTo = cursor;
    runs.lastIndex = cursor;
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

/** End of the run of token units `[A-Za-z0-9_-]` that starts at `index`. */
function runEnd(text: string, index: number): number {
  let end = index;
  while (isTokenUnit(text.charCodeAt(end))) end++;
  return end;
}

/**
 * The first and the last word boundary inside the token run `[start, end)`, or -1. `\b` sees only
 * `[A-Za-z0-9_]` as word characters: the units around a run are none, and a `-` is none, so the
 * boundaries are the edges of its word characters.
 */
function firstBoundary(text: string, start: number, end: number): number {
  for (let i = start; i < end; i++) if (isWordUnit(text.charCodeAt(i))) return i;
  return -1;
}

function lastBoundary(text: string, start: number, end: number): number {
  for (let i = end; i > start; i--) if (isWordUnit(text.charCodeAt(i - 1))) return i;
  return -1;
}

/**
 * Step 6, upstream's `/\b[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g`. Its first
 * two segments must reach their dots, so a match starts in a run of 8+ before a dot, at the run's
 * first boundary (a later one only has less room); the greedy third segment ends at its run's last
 * boundary, 8 or more in. After a match the rest of that run may start the next one.
 */
function jwtShapes(text: string): Spans {
  const spans: Spans = [];
  const segments = SEGMENT_BEFORE_DOT;
  segments.lastIndex = 0;
  for (let found = segments.exec(text); found !== null; found = segments.exec(text)) {
    const firstEnd = found.index + found[0].length;
    let start = firstBoundary(text, found.index, firstEnd);
    let end = start === -1 || firstEnd - start < 8 ? -1 : jwtEnd(text, firstEnd);
    while (end !== -1) {
      spans.push(start, end);
      segments.lastIndex = end;
      // The match ended at the third run's last boundary: what follows it in that run is a candidate.
      const restEnd = runEnd(text, end);
      start = end;
      end = restEnd - start >= 8 && text.charCodeAt(restEnd) === 0x2e ? jwtEnd(text, restEnd) : -1;
    }
  }
  return spans;
}

/** For a first segment ending at the dot `firstEnd`: where the match ends, or -1. */
function jwtEnd(text: string, firstEnd: number): number {
  const second = firstEnd + 1;
  const secondEnd = runEnd(text, second);
  if (secondEnd - second < 8 || text.charCodeAt(secondEnd) !== 0x2e) return -1;
  const third = secondEnd + 1;
  const end = lastBoundary(text, third, runEnd(text, third));
  return end >= third + 8 ? end : -1;
}

/**
 * Step 7, upstream's `/\b[A-Za-z0-9_-]{32,}\b/g`: in each run, from its first boundary to its last,
 * when they are 32 or more apart (a later start only has less room).
 */
function longTokens(text: string): Spans {
  const spans: Spans = [];
  for (const run of text.matchAll(LONG_RUN)) {
    const runEndIndex = run.index + run[0].length;
    const start = firstBoundary(text, run.index, runEndIndex);
    const end = start === -1 ? -1 : lastBoundary(text, start, runEndIndex);
    if (end - start >= 32) spans.push(start, end);
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
