// The OpenClaw plugin's lookup (getentLookup: getaddrinfo in an unref'd `getent` child) answers as
// Node's own lookup does — the same C library, nsswitch and /etc/hosts — for each shape of request
// node:net makes.
import * as dns from 'node:dns';
import { describe, expect, it } from 'vitest';
import { getentLookup } from '../../../src/http/getent-lookup.js';

type Outcome = { error: string | null; address: unknown; family?: number | undefined };

function ask(
  lookup: typeof dns.lookup | ReturnType<typeof getentLookup>,
  host: string,
  options: dns.LookupOptions,
) {
  return new Promise<Outcome>((resolve) =>
    (lookup as ReturnType<typeof getentLookup>)(host, options, (error, address, family) =>
      resolve(error === null ? { error: null, address, family } : { error: 'failed', address: undefined }),
    ),
  );
}

describe('getentLookup answers as dns.lookup', () => {
  it.each([
    ['localhost', { all: true }],
    ['localhost', { all: false }],
    ['localhost', { family: 4, all: true }],
    ['localhost', { family: 4 }],
    // RFC 6761: never resolves.
    ['no-such-host.invalid', { all: true }],
  ] as const)('%s %j', async (host, options) => {
    const node = await ask(dns.lookup, host, { ...options, hints: dns.ADDRCONFIG });
    expect(await ask(getentLookup(), host, options)).toEqual(node);
  });
});

describe('without getent', () => {
  // Negative control of the answer-once rule: before it, the child's 'close' after its spawn error
  // answered ENOTFOUND first and Node's lookup answered again.
  it.each([
    ['localhost', { all: true }],
    ['localhost', { family: 4 }],
  ] as const)('%s %j: Node’s lookup answers, once', async (host, options) => {
    const node = await ask(dns.lookup, host, options);
    const answers: Outcome[] = [];
    let childClosed!: () => void;
    const closed = new Promise<void>((resolve) => (childClosed = resolve));
    const lookup = getentLookup('/nonexistent/getent', childClosed);
    // Whatever else was coming has come once the first answer is in and the child's close was handled
    // (a second answer from the close, or Node's lookup after an answer from the close).
    await Promise.all([
      new Promise<void>((done) =>
        lookup(host, options, (error, address, family) => {
          answers.push(
            error === null ? { error: null, address, family } : { error: 'failed', address: undefined },
          );
          done();
        }),
      ),
      closed,
    ]);
    expect(answers).toEqual([node]);
  });
});
