// The credentials the broker holds never leave in a request body. The auto-recall sanitizer used to
// remove "the configured credential" from the query, but with a broker the hook only knows the fixed
// public key; the broker knows the real values, so it removes them here, from every string (and key)
// of a JSON body — after JSON decoding, so an escaped spelling (`\u0073k-…`) is caught too. Pure.

export type StripOutcome =
  /** The body, unchanged or re-serialised without the secrets; `removed` occurrences in all. */
  { ok: true; body: Uint8Array; removed: number } | { ok: false; reason: 'not-utf8' | 'not-json' };

function removeAll(text: string, secrets: readonly string[]): { text: string; removed: number } {
  let removed = 0;
  let out = text;
  for (const secret of secrets) {
    if (!out.includes(secret)) continue;
    const parts = out.split(secret);
    removed += parts.length - 1;
    out = parts.join('');
  }
  return { text: out, removed };
}

function walk(value: unknown, secrets: readonly string[], count: { removed: number }): unknown {
  if (typeof value === 'string') {
    const result = removeAll(value, secrets);
    count.removed += result.removed;
    return result.text;
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, secrets, count));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleanKey = removeAll(key, secrets);
      count.removed += cleanKey.removed;
      // A key made equal to another by the removal would silently replace it: keep both visible.
      const name = Object.hasOwn(out, cleanKey.text) ? `${cleanKey.text}#${count.removed}` : cleanKey.text;
      Object.defineProperty(out, name, {
        value: walk(item, secrets, count),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * `body` with every occurrence of every secret removed. An empty body stays empty. A body that is not
 * UTF-8 JSON is refused: what the broker cannot read, it does not forward.
 */
export function stripSecrets(body: Uint8Array, secrets: readonly string[]): StripOutcome {
  if (body.length === 0) return { ok: true, body, removed: 0 };
  let text: string;
  try {
    text = decoder.decode(body);
  } catch {
    return { ok: false, reason: 'not-utf8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not-json' };
  }
  const usable = secrets.filter((s) => s !== '');
  const count = { removed: 0 };
  const clean = walk(parsed, usable, count);
  // Unchanged bodies go out byte for byte: re-serialising would only risk a difference.
  if (count.removed === 0) return { ok: true, body, removed: 0 };
  return { ok: true, body: new TextEncoder().encode(JSON.stringify(clean)), removed: count.removed };
}
