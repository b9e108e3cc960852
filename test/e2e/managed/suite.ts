// One managed e2e suite's set-up and tear-down, written once. `managedSuite(setUp)` registers:
// - beforeAll: the set-up (fake services, rendered worlds); what it passes to `own` is closed in
//   afterAll, last owned first, also when the set-up failed half way;
// - afterEach: the test's session ends — the model's scripted answers are dropped, the session is
//   closed, the suite's own `afterEach` puts back what the test changed, and then no process of the
//   session, nor of any world's user, may still be alive;
// - `suite.launch` / `suite.direct`: the test's session (one at a time: a second one first ends the
//   first, with the same check); `suite.test(body)`: a test body whose failure carries the report of
//   the session's world (report.ts).
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { ProfileKind } from '../../../src/contracts/launch-plan.js';
import { withReport } from './report.js';
import { type DirectOptions, type LaunchOptions, ManagedSession } from './session.js';
import { ManagedWorld } from './world.js';

/** What a suite owns: a world, a fake service, a proxy, a switchable origin… */
export interface Closeable {
  close(): unknown;
}

/** Hands `thing` to the suite, which closes it in afterAll; returns it. */
export type Own = <C extends Closeable>(thing: C) => C;

export interface SuiteOptions<T> {
  /** After each test, once its session has ended: put back what the test changed (scripts, files). */
  afterEach?: (fixtures: T) => unknown;
}

export interface ManagedSuite<T> {
  /** What the set-up returned (throws when read before the set-up completed). */
  readonly fixtures: T;
  /** The test's session, if it started one. */
  readonly session: ManagedSession | undefined;
  /** `<installDir>/bin/launch-qwen --profile <kind>` in a pty as the world's user: the test's session. */
  launch(world: ManagedWorld, kind: ProfileKind, options?: LaunchOptions): Promise<ManagedSession>;
  /** Qwen started without the launcher (negative controls): the test's session. */
  direct(world: ManagedWorld, kind: ProfileKind, options: DirectOptions): Promise<ManagedSession>;
  /**
   * A test body whose failure message ends with the report (screen, requests, hook runs); it gets the
   * fixtures, then what `it.each` passes.
   */
  test<A extends unknown[]>(body: (fixtures: T, ...args: A) => Promise<void>): (...args: A) => Promise<void>;
}

export function managedSuite<T>(
  setUp: (own: Own) => Promise<T>,
  options: SuiteOptions<T> = {},
): ManagedSuite<T> {
  const owned: Closeable[] = [];
  const worlds: ManagedWorld[] = [];
  let ready: { fixtures: T } | undefined;
  let session: ManagedSession | undefined;

  const own: Own = (thing) => {
    owned.push(thing);
    if (thing instanceof ManagedWorld) worlds.push(thing);
    return thing;
  };

  /** Closes the current session; whatever outlived it fails the test. */
  const endSession = async (): Promise<void> => {
    const ending = session;
    session = undefined;
    if (ending) {
      expect(await ending.close(), `processes that outlived the ${ending.kind} session`).toEqual([]);
    }
  };

  const start = async (next: () => ManagedSession): Promise<ManagedSession> => {
    await endSession();
    session = next();
    return session;
  };

  beforeAll(async () => {
    ready = { fixtures: await setUp(own) };
  }, 300_000);

  afterEach(async () => {
    for (const world of worlds) world.model.setResponder(undefined);
    try {
      await endSession();
    } finally {
      if (ready) await options.afterEach?.(ready.fixtures);
    }
    for (const world of worlds) {
      expect(world.userProcesses(), `processes of ${world.user.name} after the test`).toEqual([]);
    }
  });

  afterAll(async () => {
    const errors: unknown[] = [];
    for (const thing of owned.splice(0).reverse()) {
      try {
        await thing.close();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'closing what the e2e suite owned failed');
  });

  return {
    get fixtures(): T {
      if (!ready) throw new Error('the suite set-up has not completed (see its beforeAll error)');
      return ready.fixtures;
    },
    get session() {
      return session;
    },
    launch: (world, kind, launchOptions) => start(() => ManagedSession.launch(world, kind, launchOptions)),
    direct: (world, kind, directOptions) => start(() => ManagedSession.direct(world, kind, directOptions)),
    test:
      (body) =>
      (...args) =>
        withReport(
          () => ({ world: session?.world ?? worlds[0], session }),
          () => {
            if (!ready) throw new Error('the suite set-up has not completed (see its beforeAll error)');
            return body(ready.fixtures, ...args);
          },
        ),
  };
}
