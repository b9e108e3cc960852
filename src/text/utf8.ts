// Strict UTF-8 decoding, one way for everyone: TextDecoder's fatal mode, which drops a leading BOM.
// (A hand-rolled decoder on buffer.isUtf8 measured no faster at a hook's start: docs/performance.md.)

/** The text of well-formed UTF-8 (a leading BOM dropped), else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
