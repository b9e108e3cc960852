// Per-item normalisation shared by Generic HTTP and Mem0: provider data is untrusted, so each field
// is copied only when it has exactly the expected type, and bad items are dropped one by one.
import { MAX_ITEMS } from '../base/limits.js';
import { isPlainObject, type JsonObject } from '../text/json.js';
import type { ContextItem } from './types.js';

/** Providers never return more than this many items, whatever was requested. */

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Normalises one raw item. `content` is chosen by the caller (Generic HTTP: `content`; Mem0: the
 * preset's content fields). Returns `undefined` when the item must be dropped.
 */
export function normaliseItem(
  raw: unknown,
  content: (item: JsonObject) => string | undefined,
): ContextItem | undefined {
  if (!isPlainObject(raw)) return undefined;
  const id = nonEmptyString(raw['id']);
  const text = content(raw);
  if (id === undefined || text === undefined || text === '') return undefined;
  const item: ContextItem = { id, content: text };
  const title = nonEmptyString(raw['title']);
  if (title !== undefined) item.title = title;
  const uri = nonEmptyString(raw['uri']);
  if (uri !== undefined) item.uri = uri;
  // A string `updated_at` wins, even "" (then there is no value, as upstream reads it); `updatedAt`
  // is the fallback only when `updated_at` is absent or not a string.
  const snake = raw['updated_at'];
  const updatedAt = typeof snake === 'string' ? snake : raw['updatedAt'];
  if (typeof updatedAt === 'string' && updatedAt !== '') item.updatedAt = updatedAt;
  const score = raw['score'];
  if (typeof score === 'number' && Number.isFinite(score)) item.score = score;
  return item;
}

/** Keeps the first `limit` (≤ MAX_ITEMS) valid items, in provider order. */
export function normaliseItems(
  raw: readonly unknown[],
  limit: number,
  content: (item: JsonObject) => string | undefined,
): ContextItem[] {
  const keep = clampLimit(limit);
  const items: ContextItem[] = [];
  for (const entry of raw) {
    if (items.length >= keep) break;
    const item = normaliseItem(entry, content);
    if (item !== undefined) items.push(item);
  }
  return items;
}

/** A requested limit as sent on the wire: an integer in 1..MAX_ITEMS. */
export function clampLimit(limit: number): number {
  if (!Number.isFinite(limit)) return MAX_ITEMS;
  return Math.min(MAX_ITEMS, Math.max(1, Math.trunc(limit)));
}
