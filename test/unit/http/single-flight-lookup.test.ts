// One lookup per host name at a time: what the runtimes' transports and the broker's dispatcher ask
// the resolver, with an injected resolver that answers only when told to.
import type * as dns from 'node:dns';
import { describe, expect, it } from 'vitest';
import { getentAddresses } from '../../../src/http/getent-lookup.js';
import { singleFlightLookup } from '../../../src/http/single-flight-lookup.js';

type Answer = (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => void;

function heldResolver() {
  const asked: Array<{ hostname: string; options: dns.LookupOptions; answer: Answer }> = [];
  const lookup = singleFlightLookup((hostname, options, answer) => asked.push({ hostname, options, answer }));
  return { asked, lookup };
}

describe('singleFlightLookup', () => {
  it('asks the resolver once for concurrent lookups of one name, and answers every caller', () => {
    const { asked, lookup } = heldResolver();
    const got: unknown[] = [];
    for (let i = 0; i < 4; i++) lookup('provider.example', { all: true }, (_e, address) => got.push(address));
    expect(asked.map((a) => a.hostname)).toEqual(['provider.example']);
    const addresses = [{ address: '192.0.2.7', family: 4 }];
    asked[0]!.answer(null, addresses);
    expect(got).toEqual([addresses, addresses, addresses, addresses]);
    // Each caller gets its own list.
    expect(new Set(got).size).toBe(4);
  });

  it.each([
    ['another name', 'model.example', { all: true }],
    ['other options', 'provider.example', { all: false, family: 4 }],
  ])('a lookup with %s does not wait for a stuck one', (_label, hostname, options: dns.LookupOptions) => {
    const { asked, lookup } = heldResolver();
    lookup('provider.example', { all: true }, () => {});
    let answered: unknown;
    lookup(hostname, options, (_e, address) => (answered = address));
    expect(asked).toHaveLength(2);
    asked[1]!.answer(null, '192.0.2.8', 4);
    expect(answered).toBe('192.0.2.8');
  });

  it('shares a failure, and asks again once the answer is in', () => {
    const { asked, lookup } = heldResolver();
    const errors: Array<string | undefined> = [];
    lookup('provider.example', {}, (e) => errors.push(e?.code));
    lookup('provider.example', {}, (e) => errors.push(e?.code));
    asked[0]!.answer(Object.assign(new Error('lookup failed'), { code: 'EAI_AGAIN' }), undefined);
    expect(errors).toEqual(['EAI_AGAIN', 'EAI_AGAIN']);
    lookup('provider.example', {}, () => {});
    expect(asked).toHaveLength(2);
  });
});

describe('getentAddresses', () => {
  it.each([
    [
      'one address, three socket types',
      '127.0.0.1       STREAM localhost\n127.0.0.1       DGRAM  \n127.0.0.1       RAW    \n',
      [{ address: '127.0.0.1', family: 4 }],
    ],
    [
      'both families, in getent order',
      '2001:db8::7     STREAM kb.example\n2001:db8::7     DGRAM  \n192.0.2.7       STREAM \n192.0.2.7       DGRAM  \n',
      [
        { address: '2001:db8::7', family: 6 },
        { address: '192.0.2.7', family: 4 },
      ],
    ],
    ['nothing (not found)', '', []],
  ])('%s', (_name, output, expected) => {
    expect(getentAddresses(output)).toEqual(expected);
  });
});
