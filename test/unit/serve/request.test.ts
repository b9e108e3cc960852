import { describe, expect, it } from 'vitest';
import { ERRORS, isJsonContentType, parseSearchBody } from '../../../src/serve/request.js';
import { parseJsonBytes } from '../../../src/text/json.js';

const invalidQuery = (status: number) => ({
  status,
  code: 'invalid_query',
  message: '"query" must be a non-blank string of at most 4096 characters.',
});
const invalidLimit = (status: number) => ({
  status,
  code: 'invalid_limit',
  message: '"limit" must be an integer from 1 to 5.',
});

describe('parseSearchBody', () => {
  it.each([
    [{ query: 'How should deployment work?', limit: 5 }, 'How should deployment work?', 5],
    [{ limit: 1, query: 'x' }, 'x', 1],
    [{ query: 'q'.repeat(4096), limit: 3 }, 'q'.repeat(4096), 3],
    // 4096 code points, 8192 UTF-16 units: the cap counts characters.
    [{ query: '😀'.repeat(4096), limit: 5 }, '😀'.repeat(4096), 5],
  ])('accepts %j', (body, query, limit) => {
    expect(parseSearchBody(body)).toEqual({ ok: true, query, limit });
  });

  it.each([
    ['an array', [], ERRORS.invalidRequest],
    ['null', null, ERRORS.invalidRequest],
    ['a string', 'query', ERRORS.invalidRequest],
    ['an extra field', { query: 'q', limit: 5, repository: 'other' }, ERRORS.invalidRequest],
    ['a missing query', { limit: 5 }, invalidQuery(400)],
    ['a numeric query', { query: 42, limit: 5 }, invalidQuery(400)],
    ['an empty query', { query: '', limit: 5 }, invalidQuery(422)],
    ['a whitespace-only query', { query: ' \n\t ', limit: 5 }, invalidQuery(422)],
    ['a query one character too long', { query: 'q'.repeat(4097), limit: 5 }, invalidQuery(422)],
    ['a missing limit', { query: 'q' }, invalidLimit(400)],
    ['a string limit "5"', { query: 'q', limit: '5' }, invalidLimit(400)],
    ['a null limit', { query: 'q', limit: null }, invalidLimit(400)],
    ['limit 0', { query: 'q', limit: 0 }, invalidLimit(422)],
    ['limit 6', { query: 'q', limit: 6 }, invalidLimit(422)],
    ['limit -1', { query: 'q', limit: -1 }, invalidLimit(422)],
    ['limit 5.5', { query: 'q', limit: 5.5 }, invalidLimit(422)],
  ])('rejects %s', (_name, body, error) => {
    expect(parseSearchBody(body)).toEqual({ ok: false, error });
  });

  it('never puts the query into an error message', () => {
    const secret = 'sk-live-do-not-echo';
    const result = parseSearchBody({ query: `${secret}${' '.repeat(5000)}`, limit: 5 });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(secret);
  });
});

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON; Charset="UTF-8"', true],
    ['application/json;charset=utf-8;foo=bar', true],
    ['application/json; charset=latin1', false],
    ['text/plain', false],
    ['application/jsonp', false],
    ['application/x-www-form-urlencoded', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (header, ok) => {
    expect(isJsonContentType(header)).toBe(ok);
  });
});

describe('parseJsonBytes: the request body', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it.each([
    ['an object', bytes('{"query":"q","limit":5}'), { ok: true, value: { query: 'q', limit: 5 } }],
    ['a bare number', bytes('5'), { ok: true, value: 5 }],
    ['an empty body', bytes(''), { ok: false }],
    ['truncated JSON', bytes('{"query":'), { ok: false }],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), { ok: false }],
  ])('decodes %s', (_name, input, result) => {
    expect(parseJsonBytes(input)).toEqual(result);
  });
});
