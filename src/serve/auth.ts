// Bearer-token check for the context server. The expected token is only ever compared, never logged.
import { createHash, timingSafeEqual } from 'node:crypto';

export type AuthResult = 'ok' | 'missing' | 'invalid';

/**
 * The shortest token serve-context starts with: every local user (and, off loopback, the network) may
 * try tokens at request speed, and a few characters fall in minutes. 16 random hex digits are 64 bits.
 */
export const MIN_TOKEN_LENGTH = 16;

const BEARER = /^Bearer +([^ ]+) *$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Returns a checker for `authorization` header values against one token, in constant time. */
export function createBearerCheck(token: string): (header: string | undefined) => AuthResult {
  if (token === '') throw new Error('the context server needs a non-empty token');
  // Hashing first gives equal-length buffers, so neither length nor content leaks through timing.
  const expected = digest(token);
  return (header) => {
    if (header === undefined || header === '') return 'missing';
    const match = BEARER.exec(header);
    if (match === null) return 'invalid';
    return timingSafeEqual(digest(match[1]!), expected) ? 'ok' : 'invalid';
  };
}
