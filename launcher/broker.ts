// Step 3b, for a brokered profile: the credential broker must be there before Qwen starts. Each
// listener this session uses — the model's, and the profile provider's while the profile is active —
// is held by root or the broker's user (the kernel's socket table) and answers its health request for
// this user. Otherwise one line says what to ask the administrator, instead of Qwen retrying a refused
// connection for ~109 s (or talking to whoever took the port).
import type * as net from 'node:net';
import { BROKER_HEALTH_TIMEOUT_MS } from '../src/base/limits.js';
import { MODEL_LISTENER } from '../src/contracts/broker.js';
import type { LaunchPlan } from '../src/contracts/launch-plan.js';
import { parseAccountDb } from '../src/host/accounts.js';
import { healthProblem, listenerOwnerProblems, requestHealth } from '../src/host/broker-check.js';
import type { ByteOrder, Endpoint, SocketTables } from '../src/host/proc-net.js';
import { failure } from './messages.js';

export interface BrokerCheckDeps {
  /** The kernel's socket tables, as far as judging these listening endpoints needs them. */
  tables(endpoints: readonly Endpoint[]): SocketTables;
  byteOrder: ByteOrder;
  /** The text of /etc/passwd (the broker's user is a local system user). */
  passwd(): string;
  connect(host: string, port: number): net.Socket;
  timeoutMs?: number;
}

/** The broker as this session uses it: the model's listener, and the provider's while the profile is active. */
export function brokerListeners(
  plan: LaunchPlan,
  externalContextActive: boolean,
): { user: string; key: string; listeners: Array<{ name: string; port: number }> } | undefined {
  const broker = plan.broker;
  if (broker === undefined) return undefined;
  return {
    user: broker.user,
    key: broker.key,
    listeners: broker.listeners.filter((l) => l.name === MODEL_LISTENER || externalContextActive),
  };
}

export async function checkBroker(
  plan: LaunchPlan,
  externalContextActive: boolean,
  deps: BrokerCheckDeps,
): Promise<void> {
  const broker = plan.broker;
  if (broker === undefined) return;
  const { listeners } = brokerListeners(plan, externalContextActive)!;
  if (listeners.length === 0) return;
  const brokerUid = parseAccountDb(deps.passwd(), '').users.find((u) => u.name === broker.user)?.uid;
  const tables = deps.tables(listeners.map((l) => ({ address: broker.host, port: l.port })));
  const owners = listenerOwnerProblems(broker, listeners, tables, deps.byteOrder, brokerUid);
  if (owners.length > 0) throw failure(...owners);
  const answers = await Promise.all(
    listeners.map((l) =>
      requestHealth(
        () => deps.connect(broker.host, l.port),
        broker.host,
        l.port,
        deps.timeoutMs ?? BROKER_HEALTH_TIMEOUT_MS,
      ),
    ),
  );
  const problems = listeners.flatMap((l, i) => healthProblem(broker.host, l, answers[i]!) ?? []);
  // One refusal is enough to say: the same broker answers every listener the same way.
  if (problems.length > 0) throw failure([...new Set(problems)][0]!);
}
