// The forwarding server with real sockets: callers are real processes of real users (the broker reads
// their uid from the kernel's table), upstreams are real loopback servers speaking the providers'
// contracts. Each security row has its negative control: the same request answered when it should be.
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as zlib from 'node:zlib';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, listenOnLoopback } from '../../../scripts/shared/loopback.js';
import { BROKER_JSON_DEPTH, type BrokerCallerLimits } from '../../../src/base/limits.js';
import { admit } from '../../../src/broker/allow.js';
import type { AuditRecord } from '../../../src/broker/audit.js';
import { accountCache, socketPeerUids } from '../../../src/broker/machine.js';
import { type BrokerServer, createBrokerServer } from '../../../src/broker/server.js';
import { BROKER_HEALTH_PATH, PROVIDER_CALLER_HEADERS } from '../../../src/contracts/broker.js';
import type { BrokerConfig } from '../../../src/contracts/broker-config.js';
import { pinnedQwenFacts } from '../../../src/qwen/versions.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../../e2e/harness/users.js';
import { holdAs, rawAs, requestAs, waitFor } from '../../fixtures/broker.js';
import {
  type FakeService,
  GENERIC_SEARCH_ROUTE,
  startGenericSearch,
} from '../../fixtures/fake-services/index.js';

const TOKEN = 'ctx-real-token-5e1a';
const MODEL_KEY = 'sk-real-model-key-0c3d';
const SEARCH = { path: '/v1/context/search', body: JSON.stringify({ query: 'deploy', limit: 5 }) };
/** What the pinned Qwen's model client sends (policies/qwen/versions.json). */
const QWEN_HEADERS = pinnedQwenFacts(undefined).modelClients['openai']!.callerHeaders;

/** A hostile model's answer: an OSC title raw, a CSI escaped and cut after `\u00`, an OSC 8 link escaped. */
const C1_STREAM = [
  'data: {"choices":[{"delta":{"content":"T:\u009d0;RETITLED\u009c R:\\u00',
  '9b31mRED\\u009B0m"}}]}\n\n',
  'data: {"choices":[{"delta":{"content":" L:\\u009d8;;ssh://evil.example/x\\u009cCLICK \\\\u009b"}}]}\n\n',
];
const C1_WHOLE = JSON.stringify({ choices: [{ message: { content: 'W:\u009b8mCONCEALED\u009b0m é' } }] });

let root: string;
let alice: TestUser;
let mallory: TestUser;
let search: FakeService;
let model: {
  loopback: Loopback;
  requests: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  cut: number;
};
let broker: BrokerServer;
let ports: Map<string, number>;
const audit: AuditRecord[] = [];

/** A streaming chat upstream: 40 SSE chunks 25 ms apart; counts answers cut off by the broker. */
async function startStreamingModel(): Promise<typeof model> {
  const state = { requests: [] as Array<{ headers: http.IncomingHttpHeaders; body: string }>, cut: 0 };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const asked = Buffer.concat(chunks).toString();
    state.requests.push({ headers: req.headers, body: asked });
    // C1 controls in both spellings, an escape cut between two writes, and a whole answer with its length.
    if (asked.includes('C1-STREAM')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const part of C1_STREAM) {
        res.write(part);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    if (asked.includes('C1-WHOLE')) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(C1_WHOLE),
      });
      res.end(C1_WHOLE);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const timer = setInterval(() => {
      if (sent === 40) {
        clearInterval(timer);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.write(`data: {"choices":[{"delta":{"content":"part ${sent++} "}}]}\n\n`);
    }, 25);
    res.on('close', () => {
      clearInterval(timer);
      if (!res.writableFinished) state.cut++;
    });
  });
  const loopback = await listenOnLoopback(server);
  return Object.assign(state, { loopback });
}

function lastAudit(): AuditRecord {
  return audit.at(-1)!;
}

beforeAll(async () => {
  root = fs.mkdtempSync('/tmp/qme2e-broker-');
  fs.chmodSync(root, 0o755);
  fs.mkdirSync(path.join(root, 'a'), { mode: 0o755 });
  fs.mkdirSync(path.join(root, 'm'), { mode: 0o755 });
  alice = createThrowawayUser(path.join(root, 'a', 'home'));
  mallory = createThrowawayUser(path.join(root, 'm', 'home'));
  search = await startGenericSearch({
    token: TOKEN,
    documents: [{ id: 'd1', content: 'deploy on tuesdays' }],
  });
  model = await startStreamingModel();
  const config: BrokerConfig = {
    version: 1,
    user: 'unused-here',
    allow: { users: [alice.name], groups: [] },
    host: '127.0.0.1',
    credentials: { CONTEXT_API_TOKEN: { file: '/unused' }, OPENAI_API_KEY: { file: '/unused' } },
    listeners: [
      {
        name: 'model',
        port: 0,
        upstream: model.loopback.url,
        credential: 'OPENAI_API_KEY',
        header: { name: 'authorization', prefix: 'Bearer ' },
        maxBodyBytes: 1 << 20,
        routes: [{ method: 'POST', path: '/v1/chat/completions' }],
        // As render lists them (the pinned Qwen's own); two more, so the other rows' controls can show a
        // listed header passing and a listed one named by Connection staying on its hop.
        callerHeaders: [...QWEN_HEADERS, 'x-kept', 'x-hop-only'],
      },
      {
        name: 'auto-recall',
        port: 0,
        upstream: search.url,
        credential: 'CONTEXT_API_TOKEN',
        header: { name: 'authorization', prefix: 'Bearer ' },
        timeoutMs: 800,
        maxBodyBytes: 4096,
        routes: [{ method: 'POST', path: '/v1/context/search' }],
        callerHeaders: [...PROVIDER_CALLER_HEADERS],
      },
    ],
  };
  const cache = accountCache([], () => performance.now());
  broker = createBrokerServer({
    config,
    credentials: new Map([
      ['CONTEXT_API_TOKEN', TOKEN],
      ['OPENAI_API_KEY', MODEL_KEY],
    ]),
    peerUids: socketPeerUids,
    admit: (uid) => admit(uid, config.allow, cache.withUid(uid)),
    upstream: new Agent(),
    audit: (line) => audit.push(JSON.parse(line) as AuditRecord),
    now: () => performance.now(),
    time: () => new Date().toISOString(),
    idle: { headersMs: 10_000, bodyMs: 10_000 },
  });
  await broker.listen();
  ports = broker.ports();
});

afterAll(async () => {
  await broker?.close(0);
  await search?.close();
  await model?.loopback.close();
  if (alice) removeThrowawayUser(alice);
  if (mallory) removeThrowawayUser(mallory);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** A raw loopback upstream: `answer` gets the request so far once its head and body have arrived. */
function rawUpstream(answer: (seen: string, socket: net.Socket) => void): Promise<Loopback> {
  return listenOnLoopback(
    net.createServer((socket) => {
      let seen = '';
      socket.on('error', () => {});
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const head = seen.indexOf('\r\n\r\n');
        const length = Number(/content-length: *(\d+)/i.exec(seen)?.[1] ?? 0);
        if (socket.writableEnded || head === -1 || seen.length < head + 4 + length) return;
        answer(seen, socket);
      });
    }),
  );
}

describe('who may call: the uid from the kernel, nothing the caller sends', () => {
  it('an allowed user is forwarded: the provider receives the real token, the answer comes back', async () => {
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      ...SEARCH,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ items: [{ id: 'd1', content: 'deploy on tuesdays' }] });
    expect(search.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(lastAudit()).toMatchObject({
      uid: alice.uid,
      user: alice.name,
      listener: 'auto-recall',
      method: 'POST',
      path: '/v1/context/search',
      decision: 'forwarded',
      status: 200,
    });
  });

  it('another local user is refused with 403 and audited under their uid; nothing goes upstream', async () => {
    const before = search.requests.length;
    const answer = await requestAs(mallory, ports.get('auto-recall')!, SEARCH);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toBe(
      `qwen-managed broker: user ${mallory.name} is not allowed to use the credential broker; ask your administrator to add you to broker.allow`,
    );
    expect(search.requests.length).toBe(before);
    expect(lastAudit()).toMatchObject({
      uid: mallory.uid,
      user: mallory.name,
      decision: 'refused',
      status: 403,
    });
  });

  it('a claimed identity in the request changes nothing (headers are not who calls)', async () => {
    const answer = await requestAs(mallory, ports.get('auto-recall')!, {
      ...SEARCH,
      headers: { 'x-forwarded-user': alice.name, 'x-remote-uid': String(alice.uid), forwarded: 'for=alice' },
    });
    expect(answer.status).toBe(403);
  });

  it('the health request answers who the kernel says is calling', async () => {
    const ok = await requestAs(alice, ports.get('model')!, { method: 'GET', path: BROKER_HEALTH_PATH });
    expect([ok.status, JSON.parse(ok.body)]).toEqual([
      200,
      { broker: 'qwen-managed', listener: 'model', uid: alice.uid, user: alice.name },
    ]);
    const refused = await requestAs(mallory, ports.get('model')!, {
      method: 'GET',
      path: BROKER_HEALTH_PATH,
    });
    expect(refused.status).toBe(403);
  });
});

describe('what is forwarded: the pinned routes, with the real credential only', () => {
  it('a path off the route list is refused and never reaches the upstream', async () => {
    const before = search.requests.length;
    for (const target of [
      '/v1/context/admin',
      '/v1/context/search?debug=1',
      '/v1//context/search',
      '/v1/context/../context/search',
    ]) {
      const answer = await requestAs(alice, ports.get('auto-recall')!, { ...SEARCH, path: target });
      expect([target, answer.status]).toEqual([target, 403]);
    }
    const wrongMethod = await requestAs(alice, ports.get('auto-recall')!, {
      method: 'GET',
      path: SEARCH.path,
    });
    expect(wrongMethod.status).toBe(403);
    expect(search.requests.length).toBe(before);
    expect(lastAudit()).toMatchObject({
      decision: 'refused',
      reason: 'this method is not allowed on this path',
    });
  });

  // On the model listener, which forwards the caller's other headers (Qwen's SDKs and customHeaders).
  const CHAT = {
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
  };
  const modelHeaderNames = () => Object.keys(model.requests.at(-1)!.headers);

  it("a caller's Authorization (and every other credential header) never reaches upstream", async () => {
    const answer = await requestAs(alice, ports.get('model')!, {
      ...CHAT,
      headers: {
        authorization: 'Bearer callers-own-token',
        'x-api-key': 'callers-key',
        // CGI and WSGI servers read it as X-Api-Key.
        x_api_key: 'callers-key',
        'x-auth-token': 'callers-key',
        token: 'callers-key',
        'ocp-apim-subscription-key': 'callers-key',
        cookie: 'session=1',
        'proxy-authorization': 'Basic eDp5',
        'content-type': 'application/json',
        // Named by Connection: hop-by-hop for this message alone (RFC 9110 §7.6.1).
        connection: 'keep-alive, x-hop-only',
        'x-hop-only': 'callers-hop',
        'x-kept': 'end-to-end',
      },
    });
    expect(answer.status).toBe(200);
    const seen = model.requests.at(-1)!;
    expect([seen.headers['x-hop-only'], seen.headers['x-kept']]).toEqual([undefined, 'end-to-end']);
    expect(
      modelHeaderNames().filter((h) => /authorization|api.key|cookie|token|subscription/.test(h)),
    ).toEqual(['authorization']);
    expect(seen.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    expect(JSON.stringify(seen.headers)).not.toContain('callers');
  });

  // Negative control (by hand, the build before): the gateway headers below reached the upstream.
  it('headers that re-route a request upstream (method/URL overrides, client address, an LLM gateway’s target) never reach it', async () => {
    const answer = await requestAs(alice, ports.get('model')!, {
      ...CHAT,
      headers: {
        'content-type': 'application/json',
        'x-http-method-override': 'DELETE',
        'x-http-method': 'DELETE',
        'x-method-override': 'DELETE',
        'x-original-url': '/v1/admin',
        'x-rewrite-url': '/v1/admin',
        'x-real-ip': '10.0.0.1',
        'true-client-ip': '10.0.0.1',
        x_forwarded_host: 'elsewhere',
        // Helicone's and Portkey's gateways would send the request, key and all, where these say.
        'helicone-target-url': 'https://collector.example',
        'x-portkey-custom-host': 'https://collector.example',
        'x-portkey-provider': 'other',
        // Negative control: an ordinary end-to-end header still travels.
        'x-kept': 'end-to-end',
      },
    });
    expect(answer.status).toBe(200);
    const names = modelHeaderNames();
    expect(names).toContain('x-kept');
    expect(
      names.filter((n) => /override|method|original|rewrite|ip$|forwarded|helicone|portkey/.test(n)),
    ).toEqual([]);
  });

  // Negative control (the build before, by hand: the model listener removed named headers only): every
  // header below reached the model's upstream, the key's organisation, project, workspace and beta
  // features picked by the caller.
  it("the model listener forwards only the pinned Qwen's own headers (and a listed one): a caller's others stay behind", async () => {
    const qwens = {
      accept: 'application/json',
      'user-agent': 'QwenCode/0.24.4 (linux; x64)',
      'x-stainless-lang': 'js',
      'x-stainless-retry-count': '0',
    };
    const answer = await requestAs(alice, ports.get('model')!, {
      ...CHAT,
      headers: {
        'content-type': 'application/json',
        ...qwens,
        'x-kept': 'listed',
        // What the OpenAI SDK sends from the developer's OPENAI_ORG_ID / OPENAI_PROJECT_ID: the bill.
        'openai-organization': 'org-other',
        'openai-project': 'proj-other',
        'openai-beta': 'assistants=v2',
        'x-dashscope-workspace': 'ws-other',
        'x-dashscope-datainspection': '{"input":"disable","output":"disable"}',
        'anthropic-beta': 'context-1m-2025-08-07',
        'x-litellm-api-key': 'callers-key',
        'x-litellm-tags': 'other-team',
        'cf-aig-authorization': 'Bearer callers-key',
        'cf-aig-skip-cache': 'true',
        'x-goog-user-project': 'other-project',
        'ai-gateway-target': 'https://collector.example',
      },
    });
    expect(answer.status).toBe(200);
    const seen = model.requests.at(-1)!;
    expect(
      modelHeaderNames()
        .filter((n) => !['host', 'connection'].includes(n))
        .sort(),
    ).toEqual(
      [
        ...Object.keys(qwens),
        'x-kept',
        'authorization',
        'accept-encoding',
        'content-length',
        'content-type',
      ].sort(),
    );
    expect(JSON.stringify(seen.headers)).not.toMatch(/other|callers/);
  });

  it("a provider listener forwards only the runtimes' own headers: anything else of the caller's stays behind", async () => {
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      ...SEARCH,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-kept': 'end-to-end',
        'mem0-org-id': 'another-org',
        'helicone-target-url': 'https://collector.example',
        'openai-organization': 'org-other',
        prefer: 'respond-async',
      },
    });
    expect(answer.status).toBe(200);
    const names = search.requests
      .at(-1)!
      .rawHeaders.filter((_, i) => i % 2 === 0)
      .map((h) => h.toLowerCase())
      .sort();
    expect(names).toEqual(
      [
        'accept',
        'accept-encoding',
        'authorization',
        'connection',
        'content-length',
        'content-type',
        'host',
      ].sort(),
    );
  });

  it('the body goes up as the JSON it is, whatever type the caller gives it', async () => {
    // Under the caller's form type an upstream reads `%2D` as "-" and `&` as a new field: a body other
    // than the one checked (here the token, percent-encoded past the check).
    const spelled = encodeURIComponent(TOKEN).replaceAll('-', '%2D');
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      path: SEARCH.path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'identity' },
      body: JSON.stringify({ query: `x&token=${spelled}`, limit: 5 }),
    });
    expect(answer.status).toBe(200);
    const seen = search.requests.at(-1)!;
    expect([seen.headers['content-type'], seen.headers['content-encoding']]).toEqual([
      'application/json',
      undefined,
    ]);
    // Negative control: read as the form the caller claimed, the body carries the token.
    expect(new URLSearchParams(seen.rawBody.toString()).get('token')).toContain(TOKEN);
  });

  it('a held credential in the body is removed before it leaves (the hook no longer knows it)', async () => {
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      path: SEARCH.path,
      body: JSON.stringify({ query: `deploy ${TOKEN} and ${MODEL_KEY}`, limit: 5 }),
    });
    expect(answer.status).toBe(200);
    expect(search.requests.at(-1)!.body).toEqual({ query: 'deploy  and ', limit: 5 });
    expect(lastAudit()).toMatchObject({ decision: 'forwarded', stripped: 2 });
    expect(JSON.stringify(audit)).not.toContain(TOKEN);
  });

  it('a non-JSON body and an oversized body are refused', async () => {
    expect(
      (await requestAs(alice, ports.get('auto-recall')!, { path: SEARCH.path, body: 'query=x' })).status,
    ).toBe(403);
    expect(
      (
        await requestAs(alice, ports.get('auto-recall')!, {
          path: SEARCH.path,
          body: JSON.stringify({ q: 'x'.repeat(5000) }),
        })
      ).status,
    ).toBe(403);
  });
});

describe('what never becomes a request is refused and audited too', () => {
  // Without the clientError and connect handlers Node answers these itself and no line is written.
  const body = SEARCH.body;
  const head = (lengths: string) =>
    `POST ${SEARCH.path} HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n${lengths}\r\n${body}`;

  it.each<[string, string, string]>([
    [
      'two Content-Lengths',
      head(`content-length: ${body.length}\r\ncontent-length: 1\r\n`),
      'HPE_UNEXPECTED_CONTENT_LENGTH',
    ],
    [
      'Transfer-Encoding beside Content-Length',
      head(`content-length: 1\r\ntransfer-encoding: chunked\r\n`),
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
  ])('a smuggling attempt (%s) is answered 400 and audited under its uid', async (_name, data, code) => {
    const before = search.requests.length;
    const answer = await rawAs(alice, ports.get('auto-recall')!, data);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    await waitFor(() => lastAudit()?.reason?.includes(code) === true);
    expect(lastAudit()).toMatchObject({ uid: alice.uid, user: alice.name, decision: 'refused', status: 400 });
    expect(search.requests.length).toBe(before);
    // Negative control: the same request with one Content-Length is forwarded.
    const control = await rawAs(
      alice,
      ports.get('auto-recall')!,
      head(`content-length: ${body.length}\r\nconnection: close\r\n`),
    );
    expect(control).toMatch(/^HTTP\/1\.1 200 /);
    expect(search.requests.length).toBe(before + 1);
  });

  it('CONNECT is answered 403 and audited', async () => {
    const answer = await rawAs(
      alice,
      ports.get('auto-recall')!,
      'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    await waitFor(() => lastAudit()?.method === 'CONNECT');
    expect(lastAudit()).toMatchObject({ uid: alice.uid, decision: 'refused', status: 403 });
  });
});

describe('one request never ends the broker: every user’s traffic goes through it', () => {
  // Without the catch around the body read, the first row's rejection goes unhandled and ends the
  // process (as it did); without the depth limit, the second's walk overflows the stack.
  it('a caller that goes away mid-body ends only its own request, audited, and the next is served', async () => {
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      path: SEARCH.path,
      body: '{"query":',
      declaredLength: 100,
    });
    expect(answer).toMatchObject({ status: 0, body: '' });
    await waitFor(() => lastAudit()?.reason === 'the caller went away before its request body ended');
    expect(lastAudit()).toMatchObject({ decision: 'failed', uid: alice.uid });
    expect((await requestAs(alice, ports.get('auto-recall')!, SEARCH)).status).toBe(200);
  });

  it(`a body nested deeper than ${BROKER_JSON_DEPTH} levels is refused with 403, and the next is served`, async () => {
    const before = model.requests.length;
    const answer = await requestAs(alice, ports.get('model')!, {
      path: '/v1/chat/completions',
      body: `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.message).toBe(
      `qwen-managed broker: the request body's JSON is nested deeper than ${BROKER_JSON_DEPTH} levels`,
    );
    expect(model.requests.length).toBe(before);
    expect((await requestAs(alice, ports.get('auto-recall')!, SEARCH)).status).toBe(200);
  });
});

describe('upstream failures: 502/504 in the error shape clients show, never a redirect followed', () => {
  it('headers the upstream names in Connection stay on its hop; the others reach the caller', async () => {
    search.script(GENERIC_SEARCH_ROUTE, {
      status: 200,
      headers: {
        'content-type': 'application/json',
        connection: 'keep-alive, x-upstream-hop',
        'x-upstream-hop': 'upstream-only',
        'x-upstream-kept': 'end-to-end',
      },
      raw: '{"items":[]}',
    });
    try {
      const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect(answer.status).toBe(200);
      expect([answer.headers['x-upstream-hop'], answer.headers['x-upstream-kept']]).toEqual([
        undefined,
        'end-to-end',
      ]);
    } finally {
      search.unscript();
    }
  });

  it('a redirect is answered 502 and not followed (no Location reaches the caller)', async () => {
    search.script(GENERIC_SEARCH_ROUTE, {
      status: 302,
      headers: { location: 'http://127.0.0.1:1/steal' },
      raw: '',
    });
    try {
      const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect(answer.status).toBe(502);
      expect(answer.headers.location).toBeUndefined();
      expect(JSON.parse(answer.body).error.code).toBe('redirect');
    } finally {
      search.unscript();
    }
  });

  it('an upstream that hangs is answered 504 once the listener deadline (800 ms) passes', async () => {
    search.script(GENERIC_SEARCH_ROUTE, { hang: true });
    try {
      const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect(answer.status).toBe(504);
      expect(lastAudit()).toMatchObject({ decision: 'failed', status: 504 });
      // Bounded by the deadline, never by the 10 s idle bound: generous, not a speed assertion.
      expect(lastAudit().ms).toBeLessThan(8000);
    } finally {
      search.unscript();
    }
  });

  it('an upstream error status passes through as it is (the runtime maps it)', async () => {
    search.script(GENERIC_SEARCH_ROUTE, { status: 429, json: { detail: 'slow down' } });
    try {
      expect((await requestAs(alice, ports.get('auto-recall')!, SEARCH)).status).toBe(429);
    } finally {
      search.unscript();
    }
  });
});

/** A broker of its own with one `on-demand` listener in front of `upstream`, closed after `body`. */
async function withBroker(
  allowUsers: string[],
  peerUids: (sockets: readonly net.Socket[]) => Array<number | undefined>,
  body: (port: number) => Promise<void>,
  upstream = search.url,
  extra: { callerLimits?: BrokerCallerLimits; audit?: AuditRecord[]; now?: () => number } = {},
): Promise<void> {
  const config: BrokerConfig = {
    version: 1,
    user: 'x',
    allow: { users: allowUsers, groups: [] },
    host: '127.0.0.1',
    credentials: { CONTEXT_API_TOKEN: { file: '/unused' } },
    listeners: [
      {
        name: 'on-demand',
        port: 0,
        upstream,
        credential: 'CONTEXT_API_TOKEN',
        header: { name: 'authorization', prefix: 'Bearer ' },
        maxBodyBytes: 4096,
        routes: [{ method: 'POST', path: '/v1/context/search' }],
        callerHeaders: [...PROVIDER_CALLER_HEADERS],
      },
    ],
  };
  const cache = accountCache([], () => performance.now());
  const server = createBrokerServer({
    config,
    credentials: new Map([['CONTEXT_API_TOKEN', TOKEN]]),
    peerUids,
    admit: (uid) => admit(uid, config.allow, cache.withUid(uid)),
    upstream: new Agent(),
    audit: (line) => extra.audit?.push(JSON.parse(line) as AuditRecord),
    now: extra.now ?? (() => performance.now()),
    time: () => new Date().toISOString(),
    idle: { headersMs: 1000, bodyMs: 1000 },
    ...(extra.callerLimits === undefined ? {} : { callerLimits: extra.callerLimits }),
  });
  await server.listen();
  try {
    await body(server.ports().get('on-demand')!);
  } finally {
    await server.close(0);
  }
}

describe('streaming', () => {
  it('the model answer streams through with the real key; the caller sees every chunk', async () => {
    const answer = await requestAs(alice, ports.get('model')!, {
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer qwen-managed-broker-no-secret' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('part 39');
    expect(answer.body.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(model.requests.at(-1)!.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
  });

  it('a chunked answer that arrives whole leaves in one write, terminator included (the caller wakes once)', async () => {
    // A search upstream that sends its whole chunked answer, terminator included, in one write.
    const answer = JSON.stringify({ items: [{ id: 'd1', content: 'deploy on tuesdays' }] });
    const chunked = `${Buffer.byteLength(answer).toString(16)}\r\n${answer}\r\n0\r\n\r\n`;
    const upstream = await rawUpstream((_seen, socket) => {
      socket.end(
        `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunked}`,
      );
    });
    // Counts the writes Node hands the kernel for the caller's connection (the broker's side of it).
    const socketProto = net.Socket.prototype as unknown as Record<
      '_write' | '_writev',
      (...a: unknown[]) => void
    >;
    const original = { write: socketProto._write, writev: socketProto._writev };
    let port = 0;
    let writes = 0;
    socketProto._write = function (this: net.Socket, ...args: unknown[]) {
      if (this.localPort === port) writes++;
      return original.write.apply(this, args);
    };
    socketProto._writev = function (this: net.Socket, ...args: unknown[]) {
      if (this.localPort === port) writes++;
      return original.writev.apply(this, args);
    };
    try {
      await withBroker(
        [alice.name],
        socketPeerUids,
        async (brokerPort) => {
          port = brokerPort;
          const got = await requestAs(alice, brokerPort, SEARCH);
          expect(got).toMatchObject({ status: 200, body: answer });
        },
        upstream.url,
      );
    } finally {
      socketProto._write = original.write;
      socketProto._writev = original.writev;
      await upstream.close();
    }
    // Without the cork: two, the headers with the data, then the terminator ("0\r\n\r\n") alone.
    expect(writes).toBe(1);
  });

  it.each<[string, string, string]>([
    [
      'streamed, raw and escaped, an escape cut between two chunks',
      'C1-STREAM',
      'data: {"choices":[{"delta":{"content":"T:\ufffd0;RETITLED\ufffd R:\\ufffd31mRED\\ufffd0m"}}]}\n\n' +
        'data: {"choices":[{"delta":{"content":" L:\\ufffd8;;ssh://evil.example/x\\ufffdCLICK \\\\u009b"}}]}\n\n' +
        'data: [DONE]\n\n',
    ],
    [
      'a whole answer whose length grows',
      'C1-WHOLE',
      JSON.stringify({ choices: [{ message: { content: 'W:\ufffd8mCONCEALED\ufffd0m é' } }] }),
    ],
  ])(
    "the model's C1 controls reach the caller as U+FFFD (Qwen prints them raw to the terminal): %s",
    async (_name, marker, expected) => {
      const answer = await requestAs(alice, ports.get('model')!, {
        path: '/v1/chat/completions',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: marker }] }),
      });
      expect(answer).toMatchObject({ status: 200, body: expected });
      expect(answer.body).not.toMatch(/[\u0080-\u009f]/);
    },
  );

  it('a caller that goes away mid-answer aborts the upstream exchange', async () => {
    const before = model.cut;
    const answer = await requestAs(alice, ports.get('model')!, {
      path: '/v1/chat/completions',
      body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
      closeAfterBytes: 100,
    });
    expect(answer.status).toBe(200);
    await waitFor(() => model.cut > before);
    expect(model.cut).toBe(before + 1);
  });
});

describe('what comes back: never a credential the broker holds', () => {
  // Without the answer's watch each row's caller reads the token: the upstream echoes what it got.
  // The refusal keeps an upstream refusal's status (4xx), so a client retries only what it would
  // have retried without the broker: a 502 for the 400 made Qwen 0.24.4 send it 28 times (e2e).
  it.each([
    [400, 400],
    [401, 401],
    [429, 429],
    [500, 502],
    [200, 502],
  ])(
    'an upstream answer %i that quotes the credential it received is answered %i, the credential kept',
    async (upstreamStatus, status) => {
      search.script(GENERIC_SEARCH_ROUTE, {
        status: upstreamStatus,
        json: { error: { message: `Incorrect API key provided: Bearer ${TOKEN}` } },
      });
      try {
        const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
        expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([status, 'upstream_echo']);
        expect(JSON.stringify(answer)).not.toContain(TOKEN);
        expect(lastAudit()).toMatchObject({ decision: 'failed', status });
      } finally {
        search.unscript();
      }
    },
  );

  it('so is one that echoes it in a header', async () => {
    search.script(GENERIC_SEARCH_ROUTE, {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-debug-auth': `Bearer ${TOKEN}` },
      raw: '{"items":[]}',
    });
    try {
      const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect(answer.status).toBe(502);
      expect(JSON.stringify(answer)).not.toContain(TOKEN);
    } finally {
      search.unscript();
    }
  });

  // Negative control (by hand, the build before): this answer reached the caller, 200, token inside.
  it('so is one that echoes it base64-encoded (the Authorization it got, in a debug field)', async () => {
    const echoed = Buffer.from(`Bearer ${TOKEN}`).toString('base64');
    search.script(GENERIC_SEARCH_ROUTE, {
      status: 200,
      json: { items: [], debug: { authorization: echoed } },
    });
    try {
      const answer = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect([answer.status, JSON.parse(answer.body).error.code]).toEqual([502, 'upstream_echo']);
      expect(JSON.stringify(answer)).not.toContain(echoed);
    } finally {
      search.unscript();
    }
  });

  it('a credential split across two chunks of a streamed answer cuts the answer before it', async () => {
    const first = `data: {"echo":"Bearer ${TOKEN.slice(0, 8)}`;
    const upstream = await rawUpstream((seen, socket) => {
      // The second half is the token's rest (the attack) or other text (the control).
      const rest = seen.includes('"control"') ? 'not-the-token"}\n\n' : `${TOKEN.slice(8)}"}\n\n`;
      const chunk1 = `${Buffer.byteLength(first).toString(16)}\r\n${first}\r\n`;
      const chunk2 = `${Buffer.byteLength(rest).toString(16)}\r\n${rest}\r\n0\r\n\r\n`;
      socket.write(
        `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${chunk1}`,
      );
      setTimeout(() => socket.end(chunk2), 100);
    });
    try {
      await withBroker(
        [alice.name],
        socketPeerUids,
        async (port) => {
          const attack = await requestAs(alice, port, SEARCH);
          expect(JSON.stringify(attack)).not.toContain(TOKEN);
          expect(attack.body).not.toContain(TOKEN.slice(8));
          // Negative control: the same stream without the token arrives whole, held bytes included.
          const control = await requestAs(alice, port, {
            path: SEARCH.path,
            body: JSON.stringify({ query: 'control' }),
          });
          expect(control).toMatchObject({
            status: 200,
            body: `${first}not-the-token"}\n\n`,
          });
        },
        upstream.url,
      );
    } finally {
      await upstream.close();
    }
  });

  it('the answer comes uncompressed whatever the caller accepts (a gzip answer would hide an echo)', async () => {
    const answer = await requestAs(alice, ports.get('auto-recall')!, {
      ...SEARCH,
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(answer.status).toBe(200);
    expect(search.requests.at(-1)!.headers['accept-encoding']).toBe('identity');
    search.script(GENERIC_SEARCH_ROUTE, {
      status: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      raw: zlib.gzipSync(JSON.stringify({ items: [{ id: TOKEN }] })),
    });
    try {
      const encoded = await requestAs(alice, ports.get('auto-recall')!, SEARCH);
      expect(encoded.status).toBe(502);
      expect(JSON.parse(encoded.body).error.code).toBe('upstream_encoded');
    } finally {
      search.unscript();
    }
  });
  it('so is a transfer coding other than chunked, which undici passes on undecoded', async () => {
    const gzipped = zlib.gzipSync(JSON.stringify({ error: `Incorrect API key: Bearer ${TOKEN}` }));
    const upstream = await rawUpstream((seen, socket) => {
      // The control: the same answer, plain, under chunked alone.
      const control = seen.includes('"control"');
      const body = control ? Buffer.from('{"items":[]}') : gzipped;
      socket.end(
        Buffer.concat([
          Buffer.from(
            `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ntransfer-encoding: ${control ? 'chunked' : 'gzip, chunked'}\r\n\r\n${body.length.toString(16)}\r\n`,
          ),
          body,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
      );
    });
    try {
      await withBroker(
        [alice.name],
        socketPeerUids,
        async (port) => {
          const attack = await requestAs(alice, port, SEARCH);
          expect(attack.status).toBe(502);
          expect(JSON.parse(attack.body).error.code).toBe('upstream_encoded');
          const control = await requestAs(alice, port, {
            path: SEARCH.path,
            body: JSON.stringify({ query: 'control' }),
          });
          expect(control).toMatchObject({ status: 401, body: '{"items":[]}' });
        },
        upstream.url,
      );
    } finally {
      await upstream.close();
    }
  });
});

describe('controls', () => {
  it('negative control: the refused user is forwarded once broker.allow names them', async () => {
    await withBroker([mallory.name], socketPeerUids, async (port) => {
      expect((await requestAs(mallory, port, SEARCH)).status).toBe(200);
      expect((await requestAs(alice, port, SEARCH)).status).toBe(403);
    });
  });

  it('no kernel row for the caller: even an allowed user is refused (the broker cannot tell who calls)', async () => {
    await withBroker(
      [alice.name],
      (sockets) => sockets.map(() => undefined),
      async (port) => {
        const answer = await requestAs(alice, port, SEARCH);
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.body).error.message).toContain('cannot tell who is calling');
      },
    );
  });
});

// Negative control (measured by hand, Node 20, on the build before: http.createServer({ requestTimeout:
// 0 }), which also made headersTimeout 0): 20 connections of a refused user that sent nothing, 20 that
// trickled a header line every 10 s and 20 of an allowed caller trickling a body were all still open
// after 100 s; 19 000 idle ones of the refused user were still held two minutes later.
describe('a pile of connections costs one read of the kernel’s tables, not one each', () => {
  /** ESTABLISHED rows of callers connected to `port` (the caller's end: its remote port is ours). */
  const connectedTo = (port: number) =>
    fs
      .readFileSync('/proc/net/tcp', 'latin1')
      .split('\n')
      .filter((line) => line.includes(`:${port.toString(16).toUpperCase().padStart(4, '0')} 01 `)).length;

  // Checked by hand: with one lookup per connection (the build before) the batches were forty 1s.
  it('connections accepted while a lookup was slow are looked up together, each answered as its caller', async () => {
    const batches: number[] = [];
    const COUNT = 40;
    const HEALTH = `GET ${BROKER_HEALTH_PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`;
    let brokerPort = 0;
    // A clock on which every lookup takes 300 ms, as on a host holding a flood's sockets: the next
    // lookup gathers for as long.
    let clock = 0;
    const counted = (sockets: readonly net.Socket[]) => {
      // The first lookup lasts until the kernel has completed the whole pile's handshakes: the rest
      // wait in the accept queue, as a flood's do while a read of the tables runs.
      if (batches.length === 0) {
        const until = performance.now() + 30_000;
        while (connectedTo(brokerPort) < COUNT && performance.now() < until);
      }
      clock += 300;
      batches.push(sockets.length);
      return socketPeerUids(sockets);
    };
    await withBroker(
      [alice.name],
      counted,
      async (port) => {
        brokerPort = port;
        const held = await holdAs(alice, port, { count: COUNT, send: HEALTH, maxMs: 30_000 });
        expect(held.filter((h) => /^HTTP\/1\.1 200 /.test(h.got)).length).toBe(COUNT);
        expect(held.every((h) => h.got.includes(`"uid":${alice.uid}`))).toBe(true);
      },
      search.url,
      { now: () => clock },
    );
    expect(batches.reduce((a, b) => a + b, 0)).toBe(COUNT);
    // The first connection (or the first few), then everyone accepted during the gathering at once.
    expect(batches.length).toBeLessThanOrEqual(3);
  });
});

describe('slow or piled-up callers hold nothing for long', () => {
  // headersMs well past firstRequestMs: an idle connection must meet the first-request timer first,
  // not Node's headers timeout (equal, the two raced on a loaded machine and either reason came back).
  const limits: BrokerCallerLimits = {
    firstRequestMs: 600,
    headersMs: 1500,
    requestMs: 2000,
    checkEveryMs: 100,
    connectionsPerUid: 3,
  };
  const SLOW = 'POST /v1/context/search HTTP/1.1\r\nHost: x\r\n';

  it('a connection that never sends a request, or trickles its head, is ended (408, audited under the caller)', async () => {
    const seen: AuditRecord[] = [];
    await withBroker(
      [alice.name],
      socketPeerUids,
      async (port) => {
        const [idle, trickle] = await Promise.all([
          holdAs(mallory, port, { count: 1, maxMs: 8000 }),
          holdAs(alice, port, { count: 1, send: SLOW, trickle: 'X-A: b\r\n', everyMs: 100, maxMs: 8000 }),
        ]);
        for (const [held] of [idle, trickle]) {
          expect(held!.closedAfterMs).toBeDefined();
          expect(held!.got).toMatch(/^HTTP\/1\.1 408 /);
        }
      },
      search.url,
      { callerLimits: limits, audit: seen },
    );
    expect(seen.map((r) => [r.user, r.status, r.decision, r.reason])).toEqual(
      expect.arrayContaining([
        [mallory.name, 408, 'refused', 'no request arrived in time on this connection'],
        [alice.name, 408, 'refused', expect.stringMatching(/in time/)],
      ]),
    );
  });

  it('an admitted request whose body trickles is ended at requestMs, audited failed', async () => {
    const seen: AuditRecord[] = [];
    await withBroker(
      [alice.name],
      socketPeerUids,
      async (port) => {
        const [held] = await holdAs(alice, port, {
          count: 1,
          send: `${SLOW}Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{`,
          trickle: ' ',
          everyMs: 100,
          maxMs: 8000,
        });
        expect(held!.closedAfterMs).toBeGreaterThanOrEqual(limits.requestMs);
        expect(held!.closedAfterMs).toBeDefined();
      },
      search.url,
      { callerLimits: limits, audit: seen },
    );
    await waitFor(() => seen.length > 0);
    expect(seen.map((r) => [r.user, r.decision])).toEqual([[alice.name, 'failed']]);
  });

  it('an answer that streams longer than every caller bound passes whole (the bounds are on the request)', async () => {
    const upstream = http.createServer(async (req, res) => {
      for await (const _ of req);
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const timer = setInterval(() => {
        if (++sent === 12) {
          clearInterval(timer);
          res.end('"end"]');
        } else res.write(`"part ${sent}",`);
      }, 250);
    });
    const loopback = await listenOnLoopback(upstream);
    try {
      await withBroker(
        [alice.name],
        socketPeerUids,
        async (port) => {
          const answer = await requestAs(alice, port, SEARCH);
          expect([answer.status, answer.body.endsWith('"part 11","end"]')]).toEqual([200, true]);
        },
        loopback.url,
        { callerLimits: limits },
      );
    } finally {
      await loopback.close();
    }
  });

  it("one caller's pile of connections is cut at connectionsPerUid (429, audited); another caller is served meanwhile", async () => {
    const seen: AuditRecord[] = [];
    await withBroker(
      [alice.name],
      socketPeerUids,
      async (port) => {
        const pile = holdAs(mallory, port, { count: 5, maxMs: 8000 });
        await waitFor(() => seen.filter((r) => r.status === 429).length === 2);
        expect((await requestAs(alice, port, SEARCH)).status).toBe(200);
        const held = await pile;
        expect(held.filter((h) => h.got.startsWith('HTTP/1.1 429 ')).length).toBe(2);
        expect(held.filter((h) => h.got.startsWith('HTTP/1.1 408 ')).length).toBe(3);
      },
      search.url,
      { callerLimits: limits, audit: seen },
    );
    expect(seen.filter((r) => r.status === 429).map((r) => [r.user, r.reason])).toEqual([
      [mallory.name, 'more than 3 connections of this caller are open'],
      [mallory.name, 'more than 3 connections of this caller are open'],
    ]);
  });
});
