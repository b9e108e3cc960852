// The broker removes every credential it holds from a request body, however the JSON spells it.
import { describe, expect, it } from 'vitest';
import { BROKER_JSON_DEPTH } from '../../../src/base/limits.js';
import { admit } from '../../../src/broker/allow.js';
import { auditPath } from '../../../src/broker/audit.js';
import { headersCarrySecret, stripSecrets, watchAnswer } from '../../../src/broker/strip-secrets.js';
import { parseAccountDb } from '../../../src/host/accounts.js';

const SECRETS = ['ctx-real-token-9f2', 'sk-model-key-77'];
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe('stripSecrets', () => {
  it.each<[string, string, string, number]>([
    [
      'a query holding the token',
      '{"query":"deploy ctx-real-token-9f2 now","limit":5}',
      '{"query":"deploy  now","limit":5}',
      1,
    ],
    [
      'inside a word, twice, and the other secret',
      '{"q":"xctx-real-token-9f2y sk-model-key-77ctx-real-token-9f2"}',
      '{"q":"xy "}',
      3,
    ],
    ['spelled with JSON escapes', '{"query":"\\u0063tx-real-token-9f2"}', '{"query":""}', 1],
    [
      'deep in arrays and objects',
      '{"messages":[{"role":"user","content":"key sk-model-key-77"}],"infer":false}',
      '{"messages":[{"role":"user","content":"key "}],"infer":false}',
      1,
    ],
    ['in a key', '{"sk-model-key-77":1}', '{"":1}', 1],
  ])('%s', (_name, body, expected, removed) => {
    const outcome = stripSecrets(bytes(body), SECRETS);
    expect(outcome.ok && { body: text(outcome.body), removed: outcome.removed }).toEqual({
      body: expected,
      removed,
    });
  });

  it.each<[string, string, string, number]>([
    [
      'spacing and number spellings',
      '{ "query" : "deploy",\n "limit": 5.0 }',
      '{"query":"deploy","limit":5}',
      0,
    ],
    // Forwarded as received, the first "query" would carry the token to an upstream that keeps the
    // first of two equal keys: JSON.parse (and so the check) sees only the last.
    [
      'a repeated key: only the value checked goes out',
      '{"query":"x ctx-real-token-9f2","query":"x","limit":5}',
      '{"query":"x","limit":5}',
      0,
    ],
  ])('the body goes out as the value checked, re-serialised: %s', (_name, body, expected, removed) => {
    const outcome = stripSecrets(bytes(body), SECRETS);
    expect(outcome.ok && { body: text(outcome.body), removed: outcome.removed }).toEqual({
      body: expected,
      removed,
    });
  });

  it(`JSON nested up to ${BROKER_JSON_DEPTH} levels is read; one level more is refused, not walked`, () => {
    const nested = (levels: number) => bytes(`${'['.repeat(levels)}"sk-model-key-77"${']'.repeat(levels)}`);
    const within = stripSecrets(nested(BROKER_JSON_DEPTH), SECRETS);
    expect(within.ok && within.removed).toBe(1);
    expect(stripSecrets(nested(BROKER_JSON_DEPTH + 1), SECRETS)).toEqual({ ok: false, reason: 'too-deep' });
    // Far deeper than the stack would carry a recursive walk: refused all the same, nothing thrown.
    expect(stripSecrets(nested(60_000), SECRETS)).toEqual({ ok: false, reason: 'too-deep' });
  });

  // One pass would send the credential the removal joined; passes until none is left would take one
  // per level of nesting (quadratic over megabytes): refused instead.
  it.each([
    ['around itself', '{"q":"sk-model-ksk-model-key-77ey-77"}'],
    ['around the other one', '{"q":"ctx-real-sk-model-key-77token-9f2"}'],
    ['in a key', '{"sk-model-ksk-model-key-77ey-77":1}'],
  ])('a credential written around another occurrence (%s) is refused', (_name, body) => {
    expect(stripSecrets(bytes(body), SECRETS)).toEqual({ ok: false, reason: 'rejoined' });
  });

  it('a body nested a thousand times around the credential is refused in one pass', () => {
    const secret = SECRETS[1]!;
    let q = secret;
    for (let i = 0; i < 1000; i++) q = `${secret.slice(0, 5)}${q}${secret.slice(5)}`;
    expect(stripSecrets(bytes(JSON.stringify({ q })), SECRETS)).toEqual({ ok: false, reason: 'rejoined' });
  });

  it('two keys that become equal are both kept', () => {
    const outcome = stripSecrets(bytes('{"ask-model-key-77":1,"a":2}'), SECRETS);
    expect(outcome.ok && JSON.parse(text(outcome.body))).toEqual({ a: 1, 'a#1': 2 });
  });

  it.each<[string, Uint8Array, string]>([
    ['not JSON', bytes('query=ctx-real-token-9f2'), 'not-json'],
    ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'not-utf8'],
  ])('%s is refused', (_name, body, reason) => {
    expect(stripSecrets(body, SECRETS)).toEqual({ ok: false, reason });
  });

  it('an empty body stays empty; an empty secret is never matched', () => {
    expect(stripSecrets(new Uint8Array(), SECRETS)).toEqual({ ok: true, body: new Uint8Array(), removed: 0 });
    const body = bytes('{"a":"b"}');
    expect(stripSecrets(body, [''])).toEqual({ ok: true, body, removed: 0 });
  });
});

describe('admit: who may use the broker', () => {
  const accounts = parseAccountDb(
    [
      'root:x:0:0:root:/root:/bin/bash',
      'alice:x:1001:1001::/home/alice:/bin/bash',
      'bob:x:1002:1002::/home/bob:/bin/bash',
      'carol:x:1003:2000::/home/carol:/bin/bash',
      'dave:x:1004:1004::/home/dave:/bin/bash',
      'qwen-managed-broker:x:998:998::/nonexistent:/usr/sbin/nologin',
      'broken line',
    ].join('\n'),
    ['alice:x:1001:', 'devs:x:2000:', 'qwen:x:3000:bob,dave', 'other:x:3001:alice'].join('\n'),
  );
  const allow = { users: ['alice'], groups: ['devs', 'qwen'] };

  it.each<[string, number, ReturnType<typeof admit>]>([
    ['root, always', 0, { allowed: true, user: 'root', via: 'root' }],
    ['a named user', 1001, { allowed: true, user: 'alice', via: 'user' }],
    ['a supplementary member of an allowed group', 1002, { allowed: true, user: 'bob', via: 'group' }],
    ['a user whose primary group is allowed', 1003, { allowed: true, user: 'carol', via: 'group' }],
    ["the broker's own user", 998, { allowed: false, user: 'qwen-managed-broker' }],
    ['a uid the database does not know', 4242, { allowed: false, user: null }],
  ])('%s', (_name, uid, admission) => {
    expect(admit(uid, allow, accounts)).toEqual(admission);
  });

  it('an allowed group the host does not have admits no one', () => {
    expect(admit(1004, { users: [], groups: ['missing'] }, accounts)).toEqual({
      allowed: false,
      user: 'dave',
    });
  });
});

describe('auditPath', () => {
  it.each<[string, string]>([
    ['/v1/chat/completions', '/v1/chat/completions'],
    ['/v1/models?key=sk-secret', '/v1/models?…'],
    ['/a#frag', '/a#…'],
    ['/a\r\nX-Injected: 1', '/a\\x0d\\x0aX-Injected: 1'],
    [`/${'x'.repeat(300)}`, `/${'x'.repeat(255)}…`],
  ])('%s', (target, shown) => {
    expect(auditPath(target)).toBe(shown);
  });
});

describe('watchAnswer: no held credential ever leaves in an answer', () => {
  const SECRET = SECRETS[1]!;
  const run = (chunks: string[]) => {
    const watch = watchAnswer(SECRETS);
    let passed = '';
    for (const chunk of chunks) {
      const seen = watch.push(bytes(chunk));
      if (!seen.ok) return { passed, leak: true };
      passed += text(seen.pass);
    }
    return { passed: passed + text(watch.end()), leak: false };
  };

  it.each<[string, string[], string]>([
    // A chunk holding a credential is not passed on at all.
    ['whole in one chunk', [`{"error":"bad key ${SECRET}"}`], ''],
    ['split across chunks', ['{"error":"bad key sk-mo', 'del-key-77"}'], '{"error":"bad key '],
    ['split over three chunks, one byte in the middle', ['x sk-model-', 'k', 'ey-77'], 'x '],
    // The watch removes nothing, so nothing joins into a credential: the near miss passes, then the cut.
    ['inside a near miss of itself', ['sk-mosk-model-k', 'ey-77del-key-77'], 'sk-mo'],
  ])('%s: cut before the credential', (_name, chunks, before) => {
    expect(run(chunks)).toEqual({ passed: before, leak: true });
  });

  it('sees a credential spelled as JSON or a URL spells it', () => {
    const slashed = 'ab/cd+ef"gh';
    for (const echo of ['{"k":"ab\\/cd+ef\\"gh"}', '{"k":"ab/cd+ef\\"gh"}', 'GET /?key=ab%2Fcd%2Bef%22gh']) {
      const watch = watchAnswer([slashed]);
      expect([echo, watch.push(bytes(echo)).ok]).toEqual([echo, false]);
    }
    expect(headersCarrySecret({ link: '</?key=ab%2Fcd%2Bef%22gh>' }, [slashed])).toBe(true);
  });

  // Negative control (by hand, on the build before): each of these echoes passed the watch whole.
  it.each<[string, (secret: string) => string]>([
    ['an echoed Basic header', (k) => `{"seen":"Basic ${Buffer.from(`user:${k}`).toString('base64')}"}`],
    ['a base64 request dump (offset 0)', (k) => Buffer.from(`Authorization: Bearer ${k}`).toString('base64')],
    ['base64 at offset 1', (k) => Buffer.from(`x${k}`).toString('base64')],
    ['base64 at offset 2', (k) => Buffer.from(`xy${k}tail`).toString('base64')],
    ['URL-safe base64', (k) => Buffer.from(`??${k}>>`).toString('base64url')],
    ['hex', (k) => `{"digest_input":"${Buffer.from(k).toString('hex')}"}`],
    ['HEX', (k) => Buffer.from(`a${k}`).toString('hex').toUpperCase()],
  ])('sees a credential inside %s', (_name, echo) => {
    for (const secret of [...SECRETS, 'sk-with/slash+plus?=~~~']) {
      const answer = echo(secret);
      expect([answer, watchAnswer([secret]).push(bytes(answer)).ok]).toEqual([answer, false]);
      expect(headersCarrySecret({ 'x-echo': answer }, [secret])).toBe(true);
    }
  });

  it('negative control: base64 and hex of other text pass, and a secret too short for two base64 groups is not looked for in base64', () => {
    for (const answer of [
      Buffer.from('Authorization: Bearer sk-model-kez-77').toString('base64'),
      Buffer.from('sk-model-key-7').toString('hex'),
      'c2s', // "sk" in base64: the 5-byte secret below has no base64 spelling
    ])
      expect(watchAnswer([...SECRETS, 'sk-ab']).push(bytes(answer)).ok).toBe(true);
  });

  it.each<[string, string[]]>([
    [
      'a stream of events (nothing held: "\\n" starts no credential)',
      ['data: {"a":1}\n\n', 'data: [DONE]\n\n'],
    ],
    ['a prefix that never completes is passed on at the next chunk', ['key sk-model-', 'other']],
    ['a prefix at the very end is passed on at the end', ['key sk-model-key-7']],
  ])('negative control, %s', (_name, chunks) => {
    expect(run(chunks)).toEqual({ passed: chunks.join(''), leak: false });
  });

  it('holds only the tail that could start a credential', () => {
    const watch = watchAnswer(SECRETS);
    const first = watch.push(bytes('data: x\n\n'));
    expect(first.ok && text(first.pass)).toBe('data: x\n\n');
    const seen = watch.push(bytes('abc sk-mod'));
    expect(seen.ok && text(seen.pass)).toBe('abc ');
  });

  it('headersCarrySecret sees a credential in any header value (or name)', () => {
    expect(headersCarrySecret({ 'x-debug': `Bearer ${SECRET}` }, SECRETS)).toBe(true);
    expect(headersCarrySecret({ 'set-x': ['a', `k=${SECRETS[0]}`] }, SECRETS)).toBe(true);
    expect(headersCarrySecret({ 'content-type': 'application/json', 'x-n': undefined }, SECRETS)).toBe(false);
  });
});
