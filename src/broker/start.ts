// `qwen-managed broker --dir DIR`, the sequence: load and check broker.json, the user and the
// credentials; bind every listener (as root: ports below 1024); become the broker's user; serve until
// asked to stop. Everything that touches the machine comes in through `BrokerMachine`.
import * as tls from 'node:tls';
import { BROKER_MODEL_IDLE_MS } from '../base/limits.js';
import type { BrokerConfig } from '../contracts/broker-config.js';
import type { Account } from '../host/accounts.js';
import { walkFileChain } from '../host/file-chain.js';
import { unprivilegedPortStart } from '../host/proc-net.js';
import { show } from '../policy/quote.js';
import { admit } from './allow.js';
import { judgeCredentialFile } from './credential-files.js';
import {
  BrokerStartError,
  brokerAccount,
  installOwnerProblems,
  type LoadFs,
  loadBrokerConfig,
  readBrokerCredentials,
} from './load.js';
import type { AccountCache } from './machine.js';
import { dropPrivileges, type IdentityOps, lazyCodeProblem, startMode } from './privileges.js';
import { type BrokerServer, createBrokerServer } from './server.js';
import { brokerUpstream } from './upstream-connector.js';

export interface BrokerMachine {
  fs: LoadFs;
  env: Readonly<Record<string, string | undefined>>;
  ids: IdentityOps;
  accounts(groups: readonly string[]): AccountCache;
  shellOf(name: string): string | undefined;
  peerUids: Parameters<typeof createBrokerServer>[0]['peerUids'];
  /** Where the broker loads code after the drop, found now; the check it returns runs as its user (lazyCodeCheck). */
  lazyCodeCheck(): () => { dir: string; at: string } | undefined;
  /** A credential file's value: one trailing newline stripped; undefined when nothing is left. */
  credentialValue(content: string): string | undefined;
  stdout(line: string): void;
  stderr(line: string): void;
  now(): number;
  time(): string;
}

export interface RunningBroker {
  server: BrokerServer;
  /** Listener name → bound port. */
  ports: Map<string, number>;
  user: string;
  stop(graceMs?: number): Promise<void>;
}

function bindProblem(error: unknown, port: number, user: string): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  if (code === 'EADDRINUSE')
    return `127.0.0.1:${port} is already in use (another broker, or another service: \`ss -ltnp 'sport = :${port}'\` shows which); stop it or choose other broker.ports`;
  if (code === 'EACCES')
    return `cannot bind 127.0.0.1:${port} (EACCES): ports below 1024 need root, or CAP_NET_BIND_SERVICE for ${user}`;
  return `cannot bind 127.0.0.1:${port} (${code})`;
}

/** The problems of one check, or its result. */
function collect<T>(problems: string[], check: () => T): T | undefined {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof BrokerStartError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/**
 * Its user, how it was started and its credentials, judged all before it refuses: an administrator
 * who fixes the one problem named would otherwise meet the next at the next start.
 */
export function checkBrokerStart(
  config: BrokerConfig,
  machine: Pick<BrokerMachine, 'fs' | 'env' | 'ids' | 'shellOf' | 'credentialValue'>,
  cache: AccountCache,
  adminUid: number,
): { account: Account; mode: 'drop' | 'already'; credentials: Map<string, string> } {
  const problems: string[] = [];
  const account = collect(problems, () => brokerAccount(config, cache.get(), machine.shellOf));
  // A secret an allowed developer can read (or swap) is not held by the broker alone: refused, with
  // verify's own words (a missing file is named by the read below, with its fix).
  for (const [name, { file }] of Object.entries(config.credentials).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const walk = walkFileChain(file, machine.fs);
    if (walk.kind === 'missing') continue;
    problems.push(...judgeCredentialFile(name, file, walk, cache.get(), { ...config, adminUid }).errors);
  }
  const owner = installOwnerProblems(adminUid, config, cache.withUid(adminUid));
  problems.push(...owner);
  const mode = account === undefined ? undefined : collect(problems, () => startMode(machine.ids, account));
  const credentials = collect(problems, () =>
    readBrokerCredentials(config, {
      ...(machine.env['CREDENTIALS_DIRECTORY']
        ? { credentialsDirectory: machine.env['CREDENTIALS_DIRECTORY'] }
        : {}),
      readFile: (file) => machine.fs.readFileSync(file),
      valueOf: machine.credentialValue,
    }),
  );
  if (account === undefined || mode === undefined || credentials === undefined || problems.length > 0)
    throw new BrokerStartError(problems);
  return { account, mode, credentials };
}

export async function startBroker(dir: string, machine: BrokerMachine): Promise<RunningBroker> {
  const { config, manifest } = loadBrokerConfig(dir, machine.fs);
  const cache = machine.accounts(config.allow.groups);
  const { account, mode, credentials } = checkBrokerStart(config, machine, cache, manifest.adminUid);
  let ca: string[] | undefined;
  if (config.extraCaCertificates !== undefined) {
    try {
      // Node's own roots stay trusted: `ca` replaces them unless they are listed too.
      ca = [
        ...tls.rootCertificates,
        new TextDecoder().decode(machine.fs.readFileSync(config.extraCaCertificates)),
      ];
    } catch {
      throw new BrokerStartError([`cannot read the private CA file ${show(config.extraCaCertificates)}`]);
    }
  }
  const portStart = unprivilegedPortStart((file) => machine.fs.readFileSync(file));
  const upstream = brokerUpstream(machine.env, ca, (socket) => ({
    ownerUid: machine.peerUids([socket])[0],
    brokerUid: account.uid,
    unprivilegedPortStart: portStart,
  }));
  const server = createBrokerServer({
    config,
    credentials,
    peerUids: machine.peerUids,
    admit: (uid) => admit(uid, config.allow, cache.withUid(uid)),
    upstream,
    audit: machine.stdout,
    now: machine.now,
    time: machine.time,
    idle: { headersMs: BROKER_MODEL_IDLE_MS, bodyMs: BROKER_MODEL_IDLE_MS },
  });
  try {
    await server.listen();
  } catch (error) {
    const port = (error as { port?: number }).port ?? 0;
    await upstream.close();
    throw new BrokerStartError([bindProblem(error, port, account.name)]);
  }
  const lazyCodeBlocked = machine.lazyCodeCheck();
  try {
    if (mode === 'drop') dropPrivileges(machine.ids, account);
    // Measured: from a toolkit under a 0700 directory (a clone in /root) the started broker answered
    // every request 502, undici's parser unreadable to its user; refused here with the fix instead.
    const blocked = lazyCodeBlocked();
    if (blocked !== undefined) throw new BrokerStartError([lazyCodeProblem(account, blocked)]);
  } catch (error) {
    await server.close(0);
    await upstream.close();
    throw error;
  }
  const ports = server.ports();
  for (const listener of config.listeners) {
    machine.stderr(
      `qwen-managed broker: ${listener.name} on 127.0.0.1:${ports.get(listener.name)} → ${listener.upstream} (${listener.routes.map((r) => `${r.method} ${r.path}`).join(', ')})\n`,
    );
  }
  machine.stderr(
    `qwen-managed broker: serving as ${account.name} (uid ${account.uid}); one audit line per request on stdout\n`,
  );
  return {
    server,
    ports,
    user: account.name,
    async stop(graceMs = 5000) {
      await server.close(graceMs);
      await upstream.destroy();
    },
  };
}
