// FETCH_BLOCKED_PORTS is the list Node's fetch() really refuses — the client Qwen's model requests go
// through. A broker listener on one of them answered the launcher's health check (a plain socket) and
// the hook's search (undici's request()), while every model request failed with "fetch failed" before
// connecting (the broker e2e, on a randomly chosen model port). Each port is asked of this Node's own
// fetch through a dispatcher that never connects: the port check comes first, then the dispatcher.
import { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BROKER_PORTS, FETCH_BLOCKED_PORTS } from '../../../src/contracts/broker.js';

const REACHED = 'the dispatcher was reached';

/** A dispatcher that refuses everything: reaching it proves fetch() would have connected. */
class NeverConnects extends Dispatcher {
  override dispatch(): boolean {
    throw new Error(REACHED);
  }
}
const neverConnects = new NeverConnects();

/** Why fetch() gave up on `port`: `bad port` before connecting, or REACHED. */
async function fetchOutcome(port: number): Promise<string> {
  try {
    // `dispatcher` is undici's documented RequestInit extension, which Node's fetch is built on.
    await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      dispatcher: neverConnects,
    } as unknown as RequestInit);
    return 'answered';
  } catch (error) {
    const cause = (error as { cause?: { message?: unknown } }).cause;
    return String(cause?.message ?? (error as Error).message);
  }
}

describe("the ports fetch() refuses, as this Node's fetch decides", () => {
  it('every TCP port: fetch refuses exactly FETCH_BLOCKED_PORTS ("bad port"), and would connect to every other', async () => {
    const refused: number[] = [];
    const other = new Set<string>();
    for (let port = 1; port <= 65_535; port++) {
      const outcome = await fetchOutcome(port);
      if (outcome === 'bad port') refused.push(port);
      else other.add(outcome);
    }
    expect(refused).toEqual([...FETCH_BLOCKED_PORTS].sort((a, b) => a - b));
    expect([...other]).toEqual([REACHED]);
  });

  it('the default listener ports are none of them', () => {
    expect(Object.values(DEFAULT_BROKER_PORTS).filter((p) => FETCH_BLOCKED_PORTS.has(p))).toEqual([]);
  });
});
