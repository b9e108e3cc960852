// The proxy path through a REAL loopback forward proxy: absolute-form for http targets, CONNECT to a
// loopback TLS server (self-signed certificate made at test time), NO_PROXY, and the stalled-proxy
// traps measured on undici 7.30.2.
import { once } from 'node:events';
import https from 'node:https';
import type net from 'node:net';
import { fileURLToPath } from 'node:url';
import { EnvHttpProxyAgent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../src/base/errors.js';
import { postJson } from '../../../src/http/client.js';
import { createTransport } from '../../../src/http/create-transport.js';
import { goesDirect, readProxySettings } from '../../../src/http/proxy-env.js';
import { ProviderRequestError } from '../../../src/http/request-error.js';
import type { TransportHandle } from '../../../src/http/transport.js';
import { createProxyTransport } from '../../../src/http/transport-proxy.js';
import { abortWhen } from '../../fixtures/abort-when.js';
import { type FaultServer, startFaultServer } from '../../fixtures/fault-server.js';
import { type LoopbackProxy, startProxy } from '../../fixtures/proxy.js';
import { runTsChild } from '../../fixtures/run-child.js';
import { FAULT_TIMEOUT_MS, PROXIED_FAULT_TIMEOUT_MS } from '../../fixtures/runtime-config.js';
import { createTestCertificate } from '../../fixtures/tls-cert.js';

const CANARY = 'canary-cred-7Q9xZp2LmW4vK8';
const CHILD = fileURLToPath(new URL('../../fixtures/http-child.ts', import.meta.url));
const certificate = createTestCertificate();

let target: FaultServer;
let tls: https.Server;
let tlsUrl: string;
const tlsRequests: { path: string; body: string; authorization: string | undefined }[] = [];
let proxy: LoopbackProxy;

beforeAll(async () => {
  target = await startFaultServer();
  tls = https.createServer({ key: certificate.key, cert: certificate.cert }, async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    tlsRequests.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"items":[],"tls":true}');
  });
  tls.listen(0, '127.0.0.1');
  await once(tls, 'listening');
  tlsUrl = `https://127.0.0.1:${(tls.address() as net.AddressInfo).port}`;
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.close();
  await target.close();
  tls.closeAllConnections();
  await new Promise<void>((resolve) => tls.close(() => resolve()));
});
beforeEach(() => {
  proxy.setFault('none');
  proxy.requests.length = 0;
  target.requests.length = 0;
  tlsRequests.length = 0;
});

async function withTransport<T>(
  env: Record<string, string>,
  timeoutMs: number,
  use: (handle: TransportHandle) => Promise<T>,
): Promise<T> {
  const handle = await createTransport(env, { timeoutMs, ca: certificate.cert });
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

function send(handle: TransportHandle, url: string, signal: AbortSignal = AbortSignal.timeout(10_000)) {
  return postJson(handle.transport, {
    url,
    credential: { name: 'authorization', value: `Bearer ${CANARY}` },
    body: { query: 'q', limit: 5 },
    signal,
  });
}

async function failureKind(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderRequestError);
  expect(String((error as Error).stack)).not.toContain(CANARY);
  return (error as ProviderRequestError).kind;
}

describe('proxy transport through a real loopback proxy', () => {
  it('forwards an http target in absolute form, headers and body intact', async () => {
    const url = target.urlFor('ok');
    await expect(withTransport({ HTTP_PROXY: proxy.url }, 5_000, (h) => send(h, url))).resolves.toEqual({
      items: [],
    });
    expect(proxy.requests.map((r) => [r.kind, r.method, r.target])).toEqual([['forward', 'POST', url]]);
    expect(target.requests.map((r) => [r.path, r.body, r.headers.authorization])).toEqual([
      ['/fault/ok', '{"query":"q","limit":5}', `Bearer ${CANARY}`],
    ]);
  });

  it('tunnels an https target with CONNECT and verifies TLS end to end', async () => {
    const url = `${tlsUrl}/v1/context/search`;
    await expect(withTransport({ https_proxy: proxy.url }, 5_000, (h) => send(h, url))).resolves.toEqual({
      items: [],
      tls: true,
    });
    expect(proxy.requests.map((r) => [r.kind, r.target])).toEqual([
      ['connect', tlsUrl.slice('https://'.length)],
    ]);
    expect(tlsRequests).toEqual([
      { path: '/v1/context/search', body: '{"query":"q","limit":5}', authorization: `Bearer ${CANARY}` },
    ]);
  });

  it('rejects a tunnelled server whose certificate is not trusted', async () => {
    const handle = await createTransport({ HTTPS_PROXY: proxy.url }, { timeoutMs: 5_000 });
    try {
      expect(await failureKind(send(handle, `${tlsUrl}/x`))).toBe('incomplete');
    } finally {
      await handle.close();
    }
    expect(tlsRequests).toEqual([]);
  });

  it.each<[string, string, () => string]>([
    ['NO_PROXY', 'the host', () => '127.0.0.1'],
    ['no_proxy', 'host:port', () => `example.com, 127.0.0.1:${new URL(target.url).port}`],
    ['NO_PROXY', 'a wildcard', () => '*'],
  ])('bypasses the proxy when %s names %s', async (name, _label, value) => {
    const url = target.urlFor('ok');
    await expect(
      withTransport({ HTTP_PROXY: proxy.url, [name]: value() }, 5_000, (h) => send(h, url)),
    ).resolves.toEqual({
      items: [],
    });
    expect(proxy.requests).toEqual([]);
    expect(target.requests.map((r) => r.path)).toEqual(['/fault/ok']);
  });

  it('still proxies when NO_PROXY names another port of the same host', async () => {
    const url = target.urlFor('ok');
    await withTransport({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' }, 5_000, (h) => send(h, url));
    expect(proxy.requests.map((r) => r.kind)).toEqual(['forward']);
  });

  it.each([403, 502])('reports a CONNECT refused with %i as incomplete', async (status) => {
    const refusing = await startProxy({ fault: 'refuse-connect', refuseStatus: status });
    try {
      expect(
        await withTransport({ HTTPS_PROXY: refusing.url }, 5_000, (h) => failureKind(send(h, `${tlsUrl}/x`))),
      ).toBe('incomplete');
      expect(refusing.requests.map((r) => r.kind)).toEqual(['connect']);
    } finally {
      await refusing.close();
    }
    expect(tlsRequests).toEqual([]);
  });

  it.each([
    ['https target (stalled CONNECT)', () => `${tlsUrl}/x`, 'connect'],
    ['http target (stalled absolute-form request)', () => target.urlFor('ok'), 'forward'],
  ])('bounds a black-hole proxy by the caller signal: %s', async (_label, url, kind) => {
    proxy.setFault('black-hole');
    // The signal fires once the proxy holds the request; the agent timeouts (60 s) outlast the
    // test's own timeout, so settling at all shows the signal ended it.
    const held = abortWhen(() => proxy.requests.length > 0);
    const outcome = await withTransport({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url }, 60_000, (h) =>
      failureKind(send(h, url(), held)),
    );
    expect(outcome).toBe('incomplete');
    expect(proxy.requests.map((r) => r.kind)).toEqual([kind]);
  });

  it('bounds a stalled CONNECT by the agent timeouts even when the signal never fires (undici ignores it)', async () => {
    proxy.setFault('black-hole');
    const started = Date.now();
    const outcome = await withTransport({ HTTPS_PROXY: proxy.url }, FAULT_TIMEOUT_MS, (h) =>
      failureKind(send(h, `${tlsUrl}/x`, new AbortController().signal)),
    );
    expect(outcome).toBe('incomplete');
    expect(proxy.requests.map((r) => r.kind)).toEqual(['connect']);
    // undici's default would be 300 s; ours is the provider timeout plus timer granularity.
    expect(Date.now() - started).toBeLessThan(5 * FAULT_TIMEOUT_MS);
  });
});

describe('a proxy that drops the connection: one connection attempt per hop, then the search ends', () => {
  it.each([
    ['reads the CONNECT and hangs up without an answer', 'drop-connect'],
    ['answers CONNECT with 200, then hangs up', 'drop-tunnel'],
  ] as const)('a proxy that %s: one CONNECT, incomplete', async (_label, fault) => {
    const dropping = await startProxy({ fault });
    try {
      const outcome = await withTransport({ HTTPS_PROXY: dropping.url }, 1_500, (h) =>
        failureKind(send(h, `${tlsUrl}/x`, AbortSignal.timeout(1_500))),
      );
      expect({ outcome, connects: dropping.requests.map((r) => r.kind) }).toEqual({
        outcome: 'incomplete',
        connects: ['connect'],
      });
    } finally {
      await dropping.close();
    }
    expect(tlsRequests).toEqual([]);
  });

  it('each later search is again one attempt (the MCP server keeps its agent)', async () => {
    const dropping = await startProxy({ fault: 'drop-connect' });
    try {
      await withTransport({ HTTPS_PROXY: dropping.url }, 1_500, async (h) => {
        for (let i = 0; i < 3; i++)
          expect(await failureKind(send(h, `${tlsUrl}/x`, AbortSignal.timeout(1_500)))).toBe('incomplete');
      });
      expect(dropping.requests.map((r) => r.kind)).toEqual(['connect', 'connect', 'connect']);
    } finally {
      await dropping.close();
    }
  });

  it('negative control: undici on its own reconnects until the agent is destroyed', async () => {
    const dropping = await startProxy({ fault: 'drop-connect' });
    const timeouts = { connectTimeout: 500, headersTimeout: 500, bodyTimeout: 500 };
    const agent = new EnvHttpProxyAgent({
      httpProxy: '',
      httpsProxy: dropping.url,
      noProxy: '',
      ...timeouts,
    });
    try {
      // The request ignores its own signal while undici keeps reconnecting: only destroy ends it.
      const pending = request(`${tlsUrl}/x`, {
        method: 'POST',
        body: '{}',
        dispatcher: agent,
        signal: AbortSignal.timeout(500),
      }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      await agent.destroy();
      await pending;
      // Measured: hundreds to thousands in half a second; any second CONNECT shows the loop.
      expect(dropping.requests.length).toBeGreaterThan(1);
    } finally {
      await agent.destroy().catch(() => {});
      await dropping.close();
    }
  });
});

describe('goesDirect decides as undici does (undici observed through the real proxy)', () => {
  // Each row: the proxy variables (PROXY = the loopback proxy) and the target; `direct` is the
  // expected decision, and undici's EnvHttpProxyAgent must route the same way.
  const rows: [string, Record<string, string>, 'http' | 'https', boolean][] = [
    ['HTTP_PROXY, no NO_PROXY', { HTTP_PROXY: 'PROXY' }, 'http', false],
    ['only HTTPS_PROXY: http targets have no proxy', { HTTPS_PROXY: 'PROXY' }, 'http', true],
    ['only HTTP_PROXY: https targets fall back to it', { HTTP_PROXY: 'PROXY' }, 'https', false],
    ['NO_PROXY names the host', { HTTP_PROXY: 'PROXY', NO_PROXY: '127.0.0.1' }, 'http', true],
    ['no_proxy names the host for https', { https_proxy: 'PROXY', no_proxy: '127.0.0.1' }, 'https', true],
    ['NO_PROXY host:port, same port', { HTTP_PROXY: 'PROXY', NO_PROXY: '127.0.0.1:PORT' }, 'http', true],
    ['NO_PROXY host:port, another port', { HTTP_PROXY: 'PROXY', NO_PROXY: '127.0.0.1:1' }, 'http', false],
    ['NO_PROXY is *', { HTTP_PROXY: 'PROXY', NO_PROXY: '*' }, 'http', true],
    ['* inside a list is not a wildcard', { HTTP_PROXY: 'PROXY', NO_PROXY: 'example.com,*' }, 'http', false],
    ['space-separated list', { HTTP_PROXY: 'PROXY', NO_PROXY: 'example.com 127.0.0.1' }, 'http', true],
    ['a suffix with a leading dot', { HTTP_PROXY: 'PROXY', NO_PROXY: '.0.0.1' }, 'http', true],
    ['a suffix with a leading *.', { HTTP_PROXY: 'PROXY', NO_PROXY: '*.0.1' }, 'http', true],
    ['a bare suffix matches at a dot', { HTTP_PROXY: 'PROXY', NO_PROXY: '0.0.1' }, 'http', true],
    ['a longer address is not a match', { HTTP_PROXY: 'PROXY', NO_PROXY: '127.0.0.10' }, 'http', false],
    ['a name is not its address', { HTTP_PROXY: 'PROXY', NO_PROXY: 'localhost' }, 'http', false],
    ['empty entries only', { HTTP_PROXY: 'PROXY', NO_PROXY: ' , ' }, 'http', false],
  ];
  it.each(rows)('%s', async (_name, raw, scheme, direct) => {
    const base = scheme === 'http' ? target.url : tlsUrl;
    const port = new URL(base).port;
    const env = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [k, v.replace('PROXY', proxy.url).replace('PORT', port)]),
    );
    const settings = readProxySettings(env)!;
    const url = scheme === 'http' ? target.urlFor('ok') : `${tlsUrl}/x`;
    expect(goesDirect(new URL(url), settings)).toBe(direct);
    // undici itself, always loaded here, routes the same request the same way.
    const undici = createProxyTransport(settings, { timeoutMs: 5_000, ca: certificate.cert });
    try {
      await send(undici, url);
    } finally {
      await undici.close();
    }
    expect(proxy.requests.length === 0).toBe(direct);
  });
});

describe('createTransport', () => {
  it.each(['not a url', 'socks5://127.0.0.1:1080', 'http://'])(
    'refuses the proxy value %j with proxy-invalid before loading undici',
    async (value) => {
      const error = await createTransport({ HTTPS_PROXY: value }, { timeoutMs: 1_000 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).code).toBe('proxy-invalid');
    },
  );
});

describe('process lifetime (fresh Node process, no process.exit)', () => {
  // The transport backstop (30 s) outlives the kill deadline (25 s): only a clean release exits in
  // time, which exit code 0 shows (a killed child reports null).
  const childArgs = (url: string, env: Record<string, string>, signalMs: number) =>
    JSON.stringify({ url, env, timeoutMs: 30_000, signalMs, credential: CANARY });

  it('does not load undici when no proxy variable is set', async () => {
    const result = await runTsChild(CHILD, [childArgs(target.urlFor('ok'), {}, 5_000)], 30_000);
    expect({ code: result.code, stderr: result.stderr, out: JSON.parse(result.stdout) }).toEqual({
      code: 0,
      stderr: '',
      out: { outcome: 'ok', undiciModules: 0 },
    });
  });

  it('does not load undici when NO_PROXY covers the target, though a proxy variable is set', async () => {
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' };
    const result = await runTsChild(CHILD, [childArgs(target.urlFor('ok'), env, 5_000)], 30_000);
    expect({ code: result.code, stderr: result.stderr, out: JSON.parse(result.stdout) }).toEqual({
      code: 0,
      stderr: '',
      out: { outcome: 'ok', undiciModules: 0 },
    });
    expect(proxy.requests).toEqual([]);
  });

  it('loads undici for a proxy, prints nothing on stderr (no experimental warning) and exits', async () => {
    const result = await runTsChild(
      CHILD,
      [childArgs(target.urlFor('ok'), { HTTP_PROXY: proxy.url }, 5_000)],
      30_000,
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'ok' });
    expect(JSON.parse(result.stdout).undiciModules).toBeGreaterThan(0);
  });

  it.each([
    ['a black-hole proxy (stalled CONNECT)', 'proxy'],
    ['a server that never answers', 'direct'],
  ])(
    'exits promptly after timing out on %s',
    async (_label, mode) => {
      proxy.setFault('black-hole');
      const env: Record<string, string> = mode === 'proxy' ? { HTTPS_PROXY: proxy.url } : {};
      const url = mode === 'proxy' ? `${tlsUrl}/x` : target.urlFor('never-answer');
      // A proxied request loads undici (through tsx here) after the signal's clock started.
      const signalMs = mode === 'proxy' ? PROXIED_FAULT_TIMEOUT_MS : FAULT_TIMEOUT_MS;
      const result = await runTsChild(CHILD, [childArgs(url, env, signalMs)], 25_000);
      expect({
        code: result.code,
        stderr: result.stderr,
        outcome: JSON.parse(result.stdout).outcome,
      }).toEqual({
        code: 0,
        stderr: '',
        outcome: 'incomplete',
      });
      // The request reached its fault before the signal fired.
      expect(
        mode === 'proxy' ? proxy.requests.map((r) => r.kind) : target.requests.map((r) => r.path),
      ).toEqual(mode === 'proxy' ? ['connect'] : ['/fault/never-answer']);
    },
    40_000,
  );
});
