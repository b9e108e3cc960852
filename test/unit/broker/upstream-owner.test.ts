// Which upstream ends may receive a credential: on loopback, only a port root or the broker holds, or
// one only root can bind; across the network, TLS decides (not judged here).
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, upstreamOwnerProblem } from '../../../src/broker/upstream-owner.js';

const BROKER = 998;
const facts = (ownerUid: number | undefined, unprivilegedPortStart: number | undefined) => ({
  ownerUid,
  brokerUid: BROKER,
  unprivilegedPortStart,
});
const FIX_BELOW_1024 =
  'have the upstream listen on a port below 1024, which only root can bind, or run it as root';
const FIX_ROOT = 'run the upstream as root: on this host any user may bind any port';
const HELD_BY_DEV = `the upstream's loopback port 8080 is held by uid 1002, not root or the broker's user: no credential is sent there (${FIX_BELOW_1024})`;

describe('upstreamOwnerProblem', () => {
  it.each<[string, string, number, ReturnType<typeof facts>, string | undefined]>([
    ['a developer on a loopback port', '127.0.0.1', 8080, facts(1002, 1024), HELD_BY_DEV],
    ['… over IPv6', '::1', 8080, facts(1002, 1024), HELD_BY_DEV],
    ['… IPv4-mapped', '::ffff:127.0.0.1', 8080, facts(1002, 1024), HELD_BY_DEV],
    ['… anywhere in 127/8', '127.0.1.1', 8080, facts(1002, 1024), HELD_BY_DEV],
    [
      'no row for the port',
      '127.0.0.1',
      8080,
      facts(undefined, 1024),
      `the upstream's loopback port 8080 is held by a process the kernel table does not show, not root or the broker's user: no credential is sent there (${FIX_BELOW_1024})`,
    ],
    ['root', '127.0.0.1', 8080, facts(0, 1024), undefined],
    ["the broker's own user", '127.0.0.1', 8080, facts(BROKER, 1024), undefined],
    ['a port below the unprivileged start, whoever holds it', '127.0.0.1', 443, facts(1002, 1024), undefined],
    [
      'the start lowered to 0 (a container): no port is privileged',
      '127.0.0.1',
      443,
      facts(1002, 0),
      `the upstream's loopback port 443 is held by uid 1002, not root or the broker's user: no credential is sent there (${FIX_ROOT})`,
    ],
    [
      'the start unreadable: no port counts as privileged',
      '127.0.0.1',
      443,
      facts(1002, undefined),
      `the upstream's loopback port 443 is held by uid 1002, not root or the broker's user: no credential is sent there (${FIX_ROOT})`,
    ],
    ['across the network (TLS decides)', '203.0.113.7', 8080, facts(1002, 1024), undefined],
  ])('%s', (_name, address, port, ownerFacts, problem) => {
    expect(upstreamOwnerProblem({ address, port }, ownerFacts)).toBe(problem);
  });

  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['128.0.0.1', false],
    ['::2', false],
    ['localhost', false],
  ])('isLoopbackAddress(%s) = %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });
});
