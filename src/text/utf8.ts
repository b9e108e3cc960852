// Strict UTF-8 decoding without TextDecoder: its first use loads Node's encoding module, a cost
// paid before every prompt by the hooks. Same answers as TextDecoder('utf-8', { fatal: true })
// (test/unit/text/utf8.test.ts checks it differentially).
import { isUtf8 } from 'node:buffer';

/** The text of well-formed UTF-8 (a leading BOM dropped, as TextDecoder does), else undefined. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start);
}
