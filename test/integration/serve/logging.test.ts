import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeFolder, post, removeFolder, SEARCH, sink, start, TOKEN } from './harness.js';

const QUERY = 'deployment secret-project-orchid';
const LINE =
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (POST|GET) (\/v1\/context\/search|-) \d{3} \d+ms items=\d+/;

describe('access log', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function traffic(logQueries: boolean): Promise<string[]> {
    const dir = await makeFolder({ 'deploy.md': '# Deployment\n\nShip small changes.\n' });
    const log = sink();
    const server = await start({ dir, log, logQueries });
    cleanup.push(
      () => removeFolder(dir),
      () => server.close(),
    );
    const responses = [
      await post(server, { query: QUERY, limit: 5 }),
      await post(server, { query: QUERY, limit: 9 }),
      await post(server, { query: QUERY, limit: 5 }, { headers: { authorization: 'Bearer wrong' } }),
      await post(server, `{"query":"${QUERY}"`),
      await fetch(`${server.url}/${encodeURIComponent(QUERY)}?query=${encodeURIComponent(QUERY)}`),
      await fetch(`${server.url}${SEARCH}?query=${encodeURIComponent(QUERY)}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    ];
    await Promise.all(responses.map((response) => response.body?.cancel()));
    return log.text().split('\n').slice(0, -1);
  }

  it('writes one line per request with status, duration and item count, and no query', async () => {
    const lines = await traffic(false);
    expect(lines.map((line) => line.replace(/^\S+ /, '').replace(/ \d+ms /, ' _ms '))).toEqual([
      'POST /v1/context/search 200 _ms items=1',
      'POST /v1/context/search 422 _ms items=0 error=invalid_limit',
      'POST /v1/context/search 401 _ms items=0 error=unauthorized',
      'POST /v1/context/search 400 _ms items=0 error=invalid_json',
      'GET - 404 _ms items=0 error=not_found',
      'GET /v1/context/search 405 _ms items=0 error=method_not_allowed',
    ]);
    expect(lines.every((line) => LINE.test(line))).toBe(true);
    expect(lines.join('\n')).not.toMatch(/orchid|secret-project/);
  });

  it('adds the query of a served search only when logQueries is on', async () => {
    const lines = await traffic(true);
    expect(lines.filter((line) => line.includes('orchid'))).toEqual([
      expect.stringMatching(/ 200 \d+ms items=1 query="deployment secret-project-orchid"$/),
    ]);
  });

  it('never writes to the process streams itself, even with logQueries and no log', async () => {
    const dir = await makeFolder({ 'a.md': '# A\n\nalpha\n' });
    const server = await start({ dir, logQueries: true });
    cleanup.push(
      () => removeFolder(dir),
      () => server.close(),
    );
    const writes = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')];
    cleanup.push(async () => {
      for (const spy of writes) spy.mockRestore();
    });
    const response = await post(server, { query: 'alpha orchid', limit: 5 });
    await response.body?.cancel();
    expect([response.status, ...writes.map((spy) => spy.mock.calls.length)]).toEqual([200, 0, 0]);
  });
});
