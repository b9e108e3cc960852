// The model's answer reaches the developer's terminal through Qwen, which escapes ESC-introduced
// sequences but prints the C1 controls U+0080–U+009F raw (measured on 0.24.4: U+009D set the window
// title, made a word an ssh:// link, wrote OSC 52; U+009B recoloured and concealed text). The model
// listener replaces each C1 control with U+FFFD as the answer streams, in both spellings an
// OpenAI-compatible server uses: raw UTF-8 (C2 80–C2 9F) and the JSON escape `\u0080`–`\u009f`
// (Python's json.dumps writes every non-ASCII character that way). Pure.

const BACKSLASH = 0x5c;
/** The UTF-8 lead byte of U+0080–U+00BF. */
const C2 = 0xc2;
const REPLACEMENT = Buffer.from('\ufffd', 'utf8');
const ESCAPED_REPLACEMENT = Buffer.from('\\ufffd', 'ascii');

/** `\u00`: the start every C1 escape shares. */
const ESCAPE_START = [BACKSLASH, 0x75, 0x30, 0x30] as const;

const isHex = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);

/**
 * What the escape at `at` (an unescaped backslash) is: `c1` for `\u0080`–`\u009f`, `other` for any
 * other escape (its two bytes pass as they are), `partial` when the chunk ends before it can tell.
 */
function escapeAt(data: Buffer, at: number): 'c1' | 'other' | 'partial' {
  for (let k = 1; k < 6; k++) {
    if (at + k >= data.length) return 'partial';
    const byte = data[at + k]!;
    if (k < 4 && byte !== ESCAPE_START[k]) return 'other';
    if (k === 4 && byte !== 0x38 && byte !== 0x39) return 'other';
    if (k === 5 && !isHex(byte)) return 'other';
  }
  return 'c1';
}

/**
 * The index of the next backslash or C2 byte from a position, or the end: native searches, each
 * repeated only once the position has passed its last hit (a search per call made a 1 MiB answer
 * without C2 quadratic).
 */
function candidates(data: Buffer): (at: number) => number {
  let slash = -2;
  let lead = -2;
  return (at) => {
    if (slash !== -1 && slash < at) slash = data.indexOf(BACKSLASH, at);
    if (lead !== -1 && lead < at) lead = data.indexOf(C2, at);
    if (slash === -1) return lead === -1 ? data.length : lead;
    return lead === -1 ? slash : Math.min(slash, lead);
  };
}

export interface AnswerControls {
  /** The bytes of `chunk` (and of what was held) now safe to pass on, C1 controls replaced. */
  push(chunk: Uint8Array): Buffer;
  /** What was held at the end: an incomplete escape or lead byte, which can spell no control. */
  end(): Buffer;
}

export function neutraliseAnswerControls(): AnswerControls {
  // Held bytes always start at an unescaped backslash or a C2 byte: scanning resumes there.
  let held: Buffer = Buffer.alloc(0);
  return {
    push(chunk) {
      const data = held.length === 0 ? Buffer.from(chunk) : Buffer.concat([held, chunk]);
      held = Buffer.alloc(0);
      const out: Buffer[] = [];
      const next = candidates(data);
      let from = 0;
      let at = 0;
      while (at < data.length) {
        const byte = data[at]!;
        if (byte === BACKSLASH) {
          const kind = escapeAt(data, at);
          if (kind === 'partial') {
            held = Buffer.from(data.subarray(at));
            break;
          }
          if (kind === 'other') {
            // The escaped byte is part of the escape: `\\` never starts another one.
            at += 2;
            continue;
          }
          out.push(data.subarray(from, at), ESCAPED_REPLACEMENT);
          at += 6;
          from = at;
        } else if (byte === C2) {
          if (at + 1 >= data.length) {
            held = Buffer.from(data.subarray(at));
            break;
          }
          const next = data[at + 1]!;
          if (next < 0x80 || next > 0x9f) {
            at += 1;
            continue;
          }
          out.push(data.subarray(from, at), REPLACEMENT);
          at += 2;
          from = at;
        } else {
          // Nothing to judge until the next backslash or C2: native searches skip to it.
          at = next(at);
        }
      }
      out.push(data.subarray(from, Math.min(at, data.length)));
      return out.length === 1 ? Buffer.from(out[0]!) : Buffer.concat(out);
    },
    end() {
      const rest = held;
      held = Buffer.alloc(0);
      return rest;
    },
  };
}
