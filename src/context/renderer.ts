// Context renderer shared by the auto-recall hook and the MCP server (docs/contracts.md, "Context renderer").
// Lengths are computed from per-field escaped lengths; the envelope is stringified exactly once.
import { CONTEXT_BUDGET_UNITS, FIELD_CAPS, MAX_ITEMS } from '../base/limits.js';
import { CONTEXT_NOTICE } from '../contracts/names.js';
import type { ContextItem } from '../providers/types.js';
import { takeCodePoints } from '../text/codepoints.js';
import { isHiddenCodePoint } from '../text/hidden.js';
import { TERMINAL_CONTROLS } from '../text/terminal-controls.js';
import { escapedJsonLength, longestEscapedPrefix } from './json-length.js';

/** Serialized key order of an item. */
const KEYS = ['id', 'content', 'title', 'uri', 'score', 'updatedAt'] as const;
/** Optional fields in the order they are given up when an item does not fit. */
const DROP_ORDER = ['score', 'updatedAt', 'title', 'uri'] as const;

type Key = (typeof KEYS)[number];
type RenderedItem = Pick<ContextItem, Key>;

// A JSON string literal (the unrolled form: linear, no backtracking). Provider text is only in one.
const STRING_LITERAL = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/** The envelope with `items: []`: the fixed part of every output. */
const EMPTY_LENGTH = serialize([]).length;

/**
 * Renders provider results as the untrusted-context envelope: at most 5 items, always a prefix of
 * the ranking, at most 4000 UTF-16 units, `<`, `>`, `[`, U+2028 and U+2029 escaped, terminal controls replaced.
 */
export function renderContext(items: readonly ContextItem[]): string {
  const kept: RenderedItem[] = [];
  let used = EMPTY_LENGTH;
  for (const candidate of items) {
    if (kept.length === MAX_ITEMS) break;
    const capped = capItem(candidate);
    // An item without id or content cannot be rendered; stopping keeps the output a ranking prefix.
    if (capped === undefined) break;
    const separator = kept.length === 0 ? 0 : 1;
    const fitted = fitItem(capped, CONTEXT_BUDGET_UNITS - used - separator);
    // Lower-ranked items are never promoted over one that did not fit.
    if (fitted === undefined) break;
    kept.push(fitted.item);
    used += separator + fitted.length;
    // Also implied by the search: the room left is below one more code point (≤ 6 units), and no item is that small.
    if (fitted.shortened) break;
  }
  return serialize(kept);
}

function serialize(items: readonly RenderedItem[]): string {
  return escapeMarkupInJson(
    JSON.stringify({ untrusted_external_context: { notice: CONTEXT_NOTICE, items } }),
  );
}

/**
 * JSON text with every `<`, `>`, U+2028 and U+2029, and every `[` inside a string, written as a
 * `\uXXXX` escape: the same value. Provider text must not open or close a tag around what the model
 * reads (a context tag, a tool response, a chat template's special token such as `<|im_end|>`) nor
 * a bracketed one (`[/TOOL_RESULTS][INST]`: Mistral's control tokens, Llama 2's turn text), nor break
 * a line where a reader splits lines on U+2028/U+2029 (JSON.stringify leaves them raw); JSON.parse
 * restores it. A `[` outside strings is JSON's own array bracket and stays.
 */
export function escapeMarkupInJson(json: string): string {
  const escaped = json
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
  return escaped.replace(STRING_LITERAL, (literal) =>
    literal.includes('[') ? literal.replaceAll('[', '\\u005b') : literal,
  );
}

// Full-width look-alikes: what `<`, `>` and `[` of provider text become in an MCP result's structured copy.
const STRUCTURED_MARKUP: Readonly<Record<string, string>> = { '<': '\uff1c', '>': '\uff1e', '[': '\uff3b' };
// Every hidden code point is above printable ASCII: a native test spares plain text the walk.
const ABOVE_ASCII = /[^\u0000-\u007e]/;

/**
 * The `structuredContent` of a `context_search` result: the rendered envelope parsed back, with
 * every `<`, `>` and `[` of provider text as U+FF1C, U+FF1E, U+FF3B and every hidden code point
 * (src/text/hidden.ts: zero-width and format characters, fillers, private use, U+2028/U+2029, …)
 * as U+FFFD (never more units than before: every bound holds). Qwen 0.24.4 gives the model
 * JSON.stringify of the structured copy before our text whenever the two differ, and prints both:
 * JSON leaves all of them raw, so the escapes of our text cannot reach this copy. Raw, a provider's
 * `</tool_response><|im_end|>` and its line separators reached the model's request as they were, and
 * a run of zero-width spaces, soft hyphens or fillers made Qwen's layout drop the rest of each row
 * it was on — visible words, a whole item with its id — from what the user saw (measured). The
 * model still gets the exact text in the escaped copy after it.
 */
export function structuredContext(envelope: string): { untrusted_external_context: Record<string, unknown> } {
  const parsed = JSON.parse(envelope) as { untrusted_external_context: { items: Record<string, unknown>[] } };
  for (const item of parsed.untrusted_external_context.items) {
    for (const [key, value] of Object.entries(item)) {
      if (typeof value === 'string') item[key] = structuredText(value);
    }
  }
  return parsed;
}

function structuredText(value: string): string {
  const marked = value.replace(/[<>[]/g, (mark) => STRUCTURED_MARKUP[mark]!);
  if (!ABOVE_ASCII.test(marked)) return marked;
  let shown = '';
  for (const char of marked) shown += isHiddenCodePoint(char.codePointAt(0)!) ? '\ufffd' : char;
  return shown;
}

// DEL, the C1 controls (U+009B CSI, U+009D OSC drive a terminal) and the bidi controls (they reorder
// what it draws). Qwen 0.24.4 prints JSON.stringify of a tool's structuredContent, where JSON leaves
// them raw, so an escape in our text cannot keep them off the user's terminal: they are replaced.
const TERMINAL_CONTROL = new RegExp(`[${TERMINAL_CONTROLS}]`, 'g');
// Text drawn as nothing that still spells a payload a model can read, replaced: the tag characters
// (U+E0000–E007F: ASCII a terminal hides and a model reads, "ASCII smuggling") with the unassigned
// rest of plane 14's ignorables, and the variation selectors but text and emoji presentation
// (U+FE00–FE0D, U+E0100–E01EF: a byte each, a payload after a single emoji). U+FE0E and U+FE0F
// stay after a character (❤️), never in a run. All of them reached the pty and the model's request
// raw from a context_search result (measured, test/e2e/managed/on-demand.test.ts).
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the selectors are matched alone, on purpose
const HIDDEN_PAYLOAD = /[\u{e0000}-\u{e0fff}\ufe00-\ufe0d]|(?<=[\ufe0e\ufe0f])[\ufe0e\ufe0f]/gu;
// A high surrogate of U+E0000–E0FFF or a selector: a native test that spares plain text the pass above.
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the selectors are matched alone, on purpose
const MAY_HIDE_PAYLOAD = /[\udb40-\udb43\ufe00-\ufe0f]/;

/**
 * Provider text with every terminal control and hidden payload replaced by U+FFFD: one code point
 * for one, never more units, so every cap and the budget hold.
 */
function neutralise(text: string): string {
  const controlled = text.replace(TERMINAL_CONTROL, '\ufffd');
  return MAY_HIDE_PAYLOAD.test(controlled) ? controlled.replace(HIDDEN_PAYLOAD, '\ufffd') : controlled;
}

/** Applies the code-point caps; empty or missing strings and non-finite scores are omitted. */
function capItem(item: ContextItem): RenderedItem | undefined {
  if (!isNonEmptyString(item.id) || !isNonEmptyString(item.content)) return undefined;
  const field = (text: string, cap: number) => neutralise(takeCodePoints(text, cap));
  const capped: RenderedItem = {
    id: field(item.id, FIELD_CAPS.id),
    content: field(item.content, FIELD_CAPS.content),
  };
  if (isNonEmptyString(item.title)) capped.title = field(item.title, FIELD_CAPS.title);
  if (isNonEmptyString(item.uri)) capped.uri = field(item.uri, FIELD_CAPS.uri);
  if (typeof item.score === 'number' && Number.isFinite(item.score)) capped.score = item.score;
  if (isNonEmptyString(item.updatedAt)) capped.updatedAt = field(item.updatedAt, FIELD_CAPS.updatedAt);
  return capped;
}

interface Fitted {
  item: RenderedItem;
  /** Serialized length of the item object. */
  length: number;
  shortened: boolean;
}

function fitItem(item: RenderedItem, room: number): Fitted | undefined {
  // Serialized `"key":value` length of each present field; dropping a field removes it from here.
  const members = new Map<Key, number>();
  for (const key of KEYS) {
    const value = item[key];
    if (value === undefined) continue;
    const valueLength = typeof value === 'number' ? JSON.stringify(value).length : escapedJsonLength(value);
    members.set(key, memberLength(key, valueLength));
  }
  let length = objectLength(members);
  for (const field of DROP_ORDER) {
    if (length <= room) return { item: pick(item, members), length, shortened: false };
    members.delete(field);
    length = objectLength(members);
  }
  if (length <= room) return { item: pick(item, members), length, shortened: false };
  // Only id and content are left: `{"id":…,"content":…}`.
  const fixed = length - members.get('content')! + memberLength('content', 0);
  const prefix = longestEscapedPrefix(item.content, room - fixed);
  if (prefix === undefined) return undefined;
  return { item: { id: item.id, content: prefix.text }, length: fixed + prefix.length, shortened: true };
}

function objectLength(members: ReadonlyMap<Key, number>): number {
  let length = 2 + members.size - 1;
  for (const member of members.values()) length += member;
  return length;
}

/** `"key":value`; keys are plain ASCII. */
function memberLength(key: Key, valueLength: number): number {
  return key.length + 3 + valueLength;
}

/** The fields of `item` still in `members`, in serialized key order. */
function pick(item: RenderedItem, members: ReadonlyMap<Key, number>): RenderedItem {
  const picked: Partial<Record<Key, unknown>> = {};
  for (const key of KEYS) if (members.has(key)) picked[key] = item[key];
  return picked as RenderedItem;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}
