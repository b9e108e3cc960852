// What verify asks this machine about a brokered install (the I/O half of checks/broker.ts): the
// broker's account, who can read each credential file, whether a credential value sits in a rendered
// file, and each listener as the launcher would judge it (owner from the kernel's table, then health).
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import { BROKER_HEALTH_TIMEOUT_MS } from '../../base/limits.js';
import { BrokerStartError, brokerAccount, installOwnerProblems } from '../../broker/load.js';
import { shellOf } from '../../broker/machine.js';
import type { BrokerConfig } from '../../contracts/broker-config.js';
import { healthProblem, listenerOwnerProblems, requestHealth } from '../../host/broker-check.js';
import { walkFileChain } from '../../host/file-chain.js';
import { listenerTables, listenerUid, unprivilegedPortStart } from '../../host/proc-net.js';
import { credentialFileValue } from '../../policy/routed-credentials.js';
import { readAccountDb } from '../host-accounts.js';
import type { InstallTree } from '../tree.js';
import type { BrokerHostFacts } from './checks/broker.js';

/** A value shorter than this could match any text by chance: it is not searched for. */
const MIN_SEARCHED_SECRET = 8;

function read(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export async function brokerHostFacts(config: BrokerConfig, tree: InstallTree): Promise<BrokerHostFacts> {
  const db = readAccountDb([...config.allow.users, config.user], config.allow.groups);
  const shell = shellOf(config.user);
  let userProblems: string[] = [];
  try {
    brokerAccount(config, db, () => shell);
  } catch (error) {
    if (!(error instanceof BrokerStartError)) throw error;
    userProblems = [...error.problems];
  }
  userProblems.push(...installOwnerProblems(tree.manifest?.adminUid ?? 0, config, db));
  const walks = new Map(Object.values(config.credentials).map(({ file }) => [file, walkFileChain(file, fs)]));
  // verify runs as root on the real install: it reads what the broker reads, and never prints it.
  const secretsIn: Array<{ file: string; credential: string }> = [];
  for (const [name, { file }] of Object.entries(config.credentials)) {
    const value = credentialFileValue(read(file));
    if (value === undefined || value.length < MIN_SEARCHED_SECRET) continue;
    const needle = Buffer.from(value);
    for (const [rel, entry] of tree.files)
      if (entry.bytes.includes(needle)) secretsIn.push({ file: rel, credential: name });
  }
  const order = os.endianness();
  const tables = listenerTables(
    fs,
    config.listeners.map((l) => ({ address: config.host, port: l.port })),
    order,
  );
  const brokerUid = db.users.find((u) => u.name === config.user)?.uid;
  const listeners = await Promise.all(
    config.listeners.map(async (listener) => {
      const ref = { name: listener.name, port: listener.port };
      const running = listenerUid(tables, { address: config.host, port: listener.port }, order) !== undefined;
      if (!running) return { ...ref, running, problems: [] };
      const owners = listenerOwnerProblems(config, [ref], tables, order, brokerUid);
      if (owners.length > 0) return { ...ref, running, problems: owners };
      const answer = await requestHealth(
        () => net.connect({ host: config.host, port: listener.port }),
        config.host,
        listener.port,
        BROKER_HEALTH_TIMEOUT_MS,
      );
      const problem = healthProblem(config.host, ref, answer);
      return { ...ref, running, problems: problem === undefined ? [] : [problem] };
    }),
  );
  return {
    db,
    shell,
    walks,
    secretsIn,
    listeners,
    unprivilegedPortStart: unprivilegedPortStart((file) => fs.readFileSync(file)),
    userProblems,
  };
}
