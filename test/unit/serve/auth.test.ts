import { describe, expect, it } from 'vitest';
import { createBearerCheck } from '../../../src/serve/auth.js';

describe('createBearerCheck', () => {
  const check = createBearerCheck('s3cret-token');

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Bearer s3cret-token', 'ok'],
    ['bearer s3cret-token', 'ok'],
    ['Bearer   s3cret-token  ', 'ok'],
    ['Bearer s3cret-tokenX', 'invalid'],
    ['Bearer s3cret', 'invalid'],
    ['Bearer ', 'invalid'],
    ['Bearer', 'invalid'],
    ['Basic s3cret-token', 'invalid'],
    ['Token s3cret-token', 'invalid'],
    ['s3cret-token', 'invalid'],
    ['Bearer s3cret-token extra', 'invalid'],
  ])('%j → %s', (header, result) => {
    expect(check(header)).toBe(result);
  });

  it('refuses to be built without a token', () => {
    expect(() => createBearerCheck('')).toThrow('non-empty token');
  });
});
