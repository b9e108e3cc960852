// The credentials the broker holds never leave in a request body. The auto-recall sanitizer used to
// remove "the configured credential" from the query, but with a broker the hook only knows the fixed
// public key; the broker knows the real values, so it removes them here, from every string (and key)
// of a JSON body — after JSON decoding, so an escaped spelling (`\u0073k-…`) is caught too. Nor in an
// answer: an upstream echoing what it received is watched for them as the answer streams. Pure.
import { BROKER_JSON_DEPTH } from '../base/limits.js';

export type StripOutcome =
  /** The body re-serialised from the value checked; `removed` occurrences of secrets in all. */
  | { ok: true; body: Uint8Array; removed: number }
  | { ok: false; reason: 'not-utf8' | 'not-json' | 'too-deep' | 'rejoined' };

/** Thrown by the walk past BROKER_JSON_DEPTH: a body that deep is refused, never walked further. */
class TooDeep extends Error {}

/** Thrown by the walk when a removal joins its two sides into a credential again. */
class Rejoined extends Error {}

function removeAll(text: string, secrets: readonly string[]): { text: string; removed: number } {
  let removed = 0;
  let out = text;
  for (const secret of secrets) {
    if (!out.includes(secret)) continue;
    const parts = out.split(secret);
    removed += parts.length - 1;
    out = parts.join('');
  }
  // One pass, then refuse: removing an occurrence can join its two sides into another
  // (`sk-a` + secret + `bc` with secret `sk-abc`), and removing until none is left takes a pass per
  // level of such nesting — quadratic in a body of megabytes, on the one thread every user shares.
  if (secrets.some((secret) => out.includes(secret))) throw new Rejoined();
  return { text: out, removed };
}

function walk(value: unknown, secrets: readonly string[], count: { removed: number }, depth = 0): unknown {
  if (depth > BROKER_JSON_DEPTH) throw new TooDeep();
  if (typeof value === 'string') {
    const result = removeAll(value, secrets);
    count.removed += result.removed;
    return result.text;
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, secrets, count, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleanKey = removeAll(key, secrets);
      count.removed += cleanKey.removed;
      // A key made equal to another by the removal would silently replace it: keep both visible.
      const name = Object.hasOwn(out, cleanKey.text) ? `${cleanKey.text}#${count.removed}` : cleanKey.text;
      Object.defineProperty(out, name, {
        value: walk(item, secrets, count, depth + 1),
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
 * `body` with every occurrence of every secret removed, re-serialised from the value checked. An empty
 * body stays empty. A body that is not UTF-8 JSON, or nested deeper than BROKER_JSON_DEPTH, is
 * refused: what the broker cannot read, it does not forward.
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
  let clean: unknown;
  try {
    clean = walk(parsed, usable, count);
  } catch (error) {
    if (error instanceof TooDeep) return { ok: false, reason: 'too-deep' };
    if (error instanceof Rejoined) return { ok: false, reason: 'rejoined' };
    throw error;
  }
  // Always the value checked, never the bytes received: JSON.parse keeps a repeated key's last value,
  // an upstream parser may keep its first, and a secret in the one not checked would go out unseen.
  return { ok: true, body: new TextEncoder().encode(JSON.stringify(clean)), removed: count.removed };
}

/**
 * Watches an upstream answer for the credentials the broker holds, as it streams: an upstream that
 * echoes the request it received (an error quoting the `Authorization` header, a debug echo) would
 * otherwise hand the caller the very secret the broker exists to keep. Bytes are released only once
 * no held credential can start in them: the tail that could still be the start of one is held until
 * the next chunk (an answer's chunks end in `\n`, `}` or `]`, which begin no credential, so a stream
 * is not delayed). Pure.
 */
export interface AnswerWatch {
  /** The bytes of `chunk` (and of what was held) now safe to pass on; `ok: false` once a credential shows. */
  push(chunk: Uint8Array): { ok: true; pass: Uint8Array } | { ok: false };
  /** What was held at the end of the answer (it cannot hold a whole credential). */
  end(): Uint8Array;
}

/**
 * The base64 texts (standard and URL alphabets, no padding) every base64 encoding of a message holding
 * `secret` contains, whatever the secret's offset in it: the encoding of each 3-byte group that lies
 * wholly inside the secret depends only on the secret and its offset modulo 3, so the three runs of
 * whole groups (from the secret's first, second and third byte) are what such an echo must contain —
 * `Basic base64(user:secret)` included. None for a secret too short to hold two whole groups at
 * every offset (so short a run could match an answer by chance).
 */
function base64Spellings(secret: Buffer): string[] {
  const spellings: string[] = [];
  for (let start = 0; start < 3; start++) {
    const groups = Math.floor((secret.length - start) / 3);
    if (groups < 2) return [];
    const standard = secret.subarray(start, start + groups * 3).toString('base64');
    spellings.push(standard, standard.replaceAll('+', '-').replaceAll('/', '_'));
    // Inside a JSON string as PHP writes it: `\/`.
    if (standard.includes('/')) spellings.push(standard.replaceAll('/', '\\/'));
  }
  return spellings;
}

/**
 * The spellings of a credential an echo may carry: as it is, inside a JSON string (`\/` included,
 * as PHP writes a slash), percent-encoded in a URL, in hex (either case) and inside any base64 text
 * (an echoed `Authorization: Basic …`, a base64 dump of the request). A hash, a mask (`sk-ab…yz`),
 * a partial or otherwise transformed echo is beyond any watch: docs/admin.md says so.
 */
function echoSpellings(secrets: readonly string[]): string[] {
  const spellings = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    const json = JSON.stringify(secret).slice(1, -1);
    const raw = Buffer.from(secret, 'utf8');
    const hex = raw.toString('hex');
    for (const spelling of [
      secret,
      json,
      json.replaceAll('/', '\\/'),
      encodeURIComponent(secret),
      hex,
      hex.toUpperCase(),
      ...base64Spellings(raw),
    ])
      spellings.add(spelling);
  }
  return [...spellings];
}

export function watchAnswer(secrets: readonly string[]): AnswerWatch {
  const needles = echoSpellings(secrets).map((s) => Buffer.from(s, 'utf8'));
  let held: Buffer = Buffer.alloc(0);
  /** The longest end of `data` that is the start of a credential (shorter than the credential). */
  const heldLength = (data: Buffer): number => {
    let longest = 0;
    for (const needle of needles) {
      // Only where the needle's first byte is: a hex or base64 spelling is long, and this runs per chunk.
      const first = needle[0]!;
      for (
        let at = data.indexOf(first, Math.max(0, data.length - needle.length + 1));
        at !== -1 && data.length - at > longest;
        at = data.indexOf(first, at + 1)
      ) {
        if (data.subarray(at).equals(needle.subarray(0, data.length - at))) {
          longest = data.length - at;
          break;
        }
      }
    }
    return longest;
  };
  return {
    push(chunk) {
      const data = held.length === 0 ? Buffer.from(chunk) : Buffer.concat([held, chunk]);
      if (needles.some((needle) => data.includes(needle))) return { ok: false };
      const keep = heldLength(data);
      held = Buffer.from(data.subarray(data.length - keep));
      return { ok: true, pass: data.subarray(0, data.length - keep) };
    },
    end() {
      const rest = held;
      held = Buffer.alloc(0);
      return rest;
    },
  };
}

/** Whether any held credential appears in a header value of an upstream answer. */
export function headersCarrySecret(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  secrets: readonly string[],
): boolean {
  const usable = echoSpellings(secrets);
  return Object.entries(headers).some(([name, value]) =>
    [name, ...(value === undefined ? [] : Array.isArray(value) ? value : [value])].some((text) =>
      usable.some((secret) => text.includes(secret)),
    ),
  );
}
