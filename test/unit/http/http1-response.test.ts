import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HttpParseError,
  MAX_HEAD_BYTES,
  type ParserEvent,
  ResponseParser,
} from '../../../src/http/http1-response.js';

interface Parsed {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  ended: boolean;
}

/** Feeds `raw` in the given pieces, then (optionally) the end of the connection. */
function parse(pieces: readonly string[], close = true): Parsed {
  const parser = new ResponseParser();
  const out: Parsed = { body: '', ended: false };
  const take = (events: ParserEvent[]) => {
    for (const e of events) {
      if (e.type === 'head') Object.assign(out, { status: e.status, headers: e.headers });
      else if (e.type === 'data') out.body += Buffer.from(e.chunk).toString('latin1');
      else out.ended = true;
    }
  };
  for (const piece of pieces) take(parser.push(Buffer.from(piece, 'latin1')));
  if (close) take(parser.finish());
  return out;
}

const ok = (head: string, body = '') => `HTTP/1.1 200 OK\r\n${head}\r\n\r\n${body}`;

describe('framing', () => {
  it.each<[string, string, Parsed]>([
    [
      'content-length',
      ok('Content-Length: 5', 'hello'),
      { status: 200, headers: { 'content-length': '5' }, body: 'hello', ended: true },
    ],
    [
      'content-length 0',
      ok('content-length: 0'),
      { status: 200, headers: { 'content-length': '0' }, body: '', ended: true },
    ],
    [
      'bytes past content-length are ignored',
      ok('content-length: 2', 'hello'),
      { status: 200, headers: { 'content-length': '2' }, body: 'he', ended: true },
    ],
    [
      'chunked',
      ok('Transfer-Encoding: chunked', '5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n'),
      { status: 200, headers: { 'transfer-encoding': 'chunked' }, body: 'hello world', ended: true },
    ],
    [
      'chunked with trailers',
      ok('transfer-encoding: chunked', '2\r\nhi\r\n0\r\nx-t: 1\r\n\r\n'),
      { status: 200, headers: { 'transfer-encoding': 'chunked' }, body: 'hi', ended: true },
    ],
    [
      'transfer-encoding wins over content-length',
      ok('content-length: 1\r\ntransfer-encoding: chunked', '3\r\nabc\r\n0\r\n\r\n'),
      {
        status: 200,
        headers: { 'content-length': '1', 'transfer-encoding': 'chunked' },
        body: 'abc',
        ended: true,
      },
    ],
    [
      'no length: body until the close',
      ok('x-a: b', 'until close'),
      { status: 200, headers: { 'x-a': 'b' }, body: 'until close', ended: true },
    ],
    [
      'non-chunked transfer coding: until the close',
      ok('transfer-encoding: gzip', 'raw'),
      { status: 200, headers: { 'transfer-encoding': 'gzip' }, body: 'raw', ended: true },
    ],
    [
      '204 has no body',
      'HTTP/1.1 204 No Content\r\n\r\n',
      { status: 204, headers: {}, body: '', ended: true },
    ],
    [
      'interim 100 Continue is skipped',
      `HTTP/1.1 100 Continue\r\n\r\n${ok('content-length: 2', 'ok')}`,
      { status: 200, headers: { 'content-length': '2' }, body: 'ok', ended: true },
    ],
    [
      'repeated headers are joined',
      ok('set-cookie: a=1\r\nSet-Cookie: b=2\r\ncontent-length: 0'),
      { status: 200, headers: { 'set-cookie': 'a=1, b=2', 'content-length': '0' }, body: '', ended: true },
    ],
    [
      'a reason phrase is optional',
      'HTTP/1.0 302\r\nlocation: /x\r\ncontent-length: 0\r\n\r\n',
      { status: 302, headers: { location: '/x', 'content-length': '0' }, body: '', ended: true },
    ],
    [
      'equal duplicate content-lengths agree',
      ok('content-length: 2, 2', 'ok'),
      { status: 200, headers: { 'content-length': '2, 2' }, body: 'ok', ended: true },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(parse([raw])).toEqual(expected);
  });

  it('does not end a length-delimited body early at the close', () => {
    expect(() => parse([ok('content-length: 10', 'short')])).toThrow(HttpParseError);
  });

  it('does not end a chunked body early at the close', () => {
    expect(() => parse([ok('transfer-encoding: chunked', '5\r\nhel')])).toThrow(HttpParseError);
  });

  it('does not invent a response from a connection that closed in the head', () => {
    expect(() => parse(['HTTP/1.1 200 OK\r\ncontent-ty'])).toThrow(HttpParseError);
  });
});

describe('refusals', () => {
  it.each<[string, string]>([
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n'],
    ['HTTP/2 preface', 'HTTP/2 200\r\n\r\n'],
    ['a three-digit status only', 'HTTP/1.1 20 OK\r\n\r\n'],
    ['status 099', 'HTTP/1.1 099 X\r\n\r\n'],
    ['obsolete line folding', ok('x-a: b\r\n  folded', '')],
    ['a header without a colon', ok('broken header', '')],
    ['a space before the colon', ok('x-a : b', '')],
    ['conflicting content-lengths', ok('content-length: 1, 2', 'ab')],
    ['a negative content-length', ok('content-length: -1', '')],
    ['a non-numeric content-length', ok('content-length: 0x10', '')],
    ['a malformed chunk size', ok('transfer-encoding: chunked', 'zz\r\n')],
    ['a chunk without its CRLF', ok('transfer-encoding: chunked', '2\r\nhiXX0\r\n\r\n')],
    ['an over-long chunk size', ok('transfer-encoding: chunked', '123456789\r\n')],
    ['101 Switching Protocols', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\n\r\n'],
  ])('%s', (_name, raw) => {
    expect(() => parse([raw], false)).toThrow(HttpParseError);
  });

  it('refuses a head over 64 KiB without waiting for its end', () => {
    const parser = new ResponseParser();
    expect(() => parser.push(Buffer.from(`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(MAX_HEAD_BYTES)}`))).toThrow(
      'response head too large',
    );
  });

  it('refuses an endless chunk-size line', () => {
    const parser = new ResponseParser();
    parser.push(Buffer.from(ok('transfer-encoding: chunked', '')));
    expect(() => parser.push(Buffer.from('1'.repeat(5000)))).toThrow('chunk line too long');
  });
});

describe('incremental parsing', () => {
  const responses = [
    ok('content-length: 11', 'hello world'),
    ok('transfer-encoding: chunked', '5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n'),
    `HTTP/1.1 100 Continue\r\n\r\n${ok('x: y', 'close-delimited body')}`,
  ];

  it('gives the same result however the bytes are split', () => {
    fc.assert(
      fc.property(fc.constantFrom(...responses), fc.array(fc.nat(), { maxLength: 12 }), (raw, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (raw.length + 1)))].sort((a, b) => a - b);
        const pieces: string[] = [];
        let last = 0;
        for (const p of points) {
          pieces.push(raw.slice(last, p));
          last = p;
        }
        pieces.push(raw.slice(last));
        expect(parse(pieces)).toEqual(parse([raw]));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same result fed one byte at a time', () => {
    for (const raw of responses) expect(parse([...raw])).toEqual(parse([raw]));
  });
});
