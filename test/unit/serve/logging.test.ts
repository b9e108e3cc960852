import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type AccessLogEntry, createAccessLogger, formatAccessLog } from '../../../src/serve/logging.js';

const entry: AccessLogEntry = {
  time: new Date('2026-07-23T10:00:00.000Z'),
  method: 'POST',
  route: '/v1/context/search',
  status: 200,
  durationMs: 3.6,
  items: 2,
  query: 'deploy "now"\nplease',
};

describe('formatAccessLog', () => {
  it('writes time, method, route, status, duration and item count, without the query by default', () => {
    expect(formatAccessLog(entry, false)).toBe(
      '2026-07-23T10:00:00.000Z POST /v1/context/search 200 4ms items=2\n',
    );
  });

  it('adds the query as one JSON-quoted field only when asked', () => {
    expect(formatAccessLog(entry, true)).toBe(
      '2026-07-23T10:00:00.000Z POST /v1/context/search 200 4ms items=2 query="deploy \\"now\\"\\nplease"\n',
    );
  });

  it('adds the error code of a refused request', () => {
    const { query: _query, ...withoutQuery } = entry;
    expect(formatAccessLog({ ...withoutQuery, status: 401, items: 0, error: 'unauthorized' }, true)).toBe(
      '2026-07-23T10:00:00.000Z POST /v1/context/search 401 4ms items=0 error=unauthorized\n',
    );
  });
});

describe('createAccessLogger', () => {
  it('writes one line per entry to the given stream', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createAccessLogger(sink, false);
    log(entry);
    log({ ...entry, status: 404, route: '-' });
    expect(lines).toEqual([
      '2026-07-23T10:00:00.000Z POST /v1/context/search 200 4ms items=2\n',
      '2026-07-23T10:00:00.000Z POST - 404 4ms items=2\n',
    ]);
  });
});
