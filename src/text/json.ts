// Untrusted JSON, one way for everyone: bytes to a value (strict UTF-8, then JSON.parse), and the one
// test for "a JSON object". Hooks, providers, the reference server and the deployment tools share it;
// it imports only utf8.ts, so the hooks load nothing else with it.
import { decodeUtf8 } from './utf8.js';

export type JsonObject = Record<string, unknown>;

/** An object that is not null and not an array. */
export function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Strict UTF-8 (a leading BOM dropped), then JSON.parse; not ok for anything else, empty input included. */
export function parseJsonBytes(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  const text = decodeUtf8(bytes);
  if (text === undefined) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
