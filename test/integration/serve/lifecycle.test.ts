import { describe, expect, it } from 'vitest';
import { makeFolder, post, removeFolder, start } from './harness.js';

describe('server lifecycle', () => {
  it('refuses to start without a token', async () => {
    const dir = await makeFolder({ 'a.md': '# A\n\nalpha\n' });
    const started = start({ dir, token: '' });
    await expect(started).rejects.toThrow('non-empty token');
    await removeFolder(dir);
  });

  it('listens on the loopback address and port it reports, and close() is idempotent and frees the port', async () => {
    const dir = await makeFolder({ 'a.md': '# A\n\nalpha\n' });
    const server = await start({ dir });
    const before = await post(server, { query: 'alpha', limit: 5 });
    await before.body?.cancel();
    await Promise.all([server.close(), server.close()]);
    const again = await start({ dir, port: server.port });
    await again.close();
    await removeFolder(dir);
    expect([server.url, before.status, again.port]).toEqual([
      `http://127.0.0.1:${server.port}`,
      200,
      server.port,
    ]);
  });

  it('closes while a keep-alive connection is idle', async () => {
    const dir = await makeFolder({ 'a.md': '# A\n\nalpha\n' });
    const server = await start({ dir });
    const response = await post(server, { query: 'alpha', limit: 5 }, { keepalive: true });
    await response.json();
    await server.close();
    await removeFolder(dir);
    await expect(post(server, { query: 'alpha', limit: 5 })).rejects.toThrow();
  });
});
