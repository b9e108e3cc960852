// `qwen-managed broker --dir DIR`: runs the install's credential broker in the foreground until
// SIGTERM or SIGINT (docs/admin.md, "The credential broker"). Started as root it binds its ports and
// becomes its own user; the packaged systemd unit starts it as that user with the credentials loaded.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BrokerStartError } from '../../broker/load.js';
import { accountCache, lazyCodeCheck, shellOf, socketPeerUids } from '../../broker/machine.js';
import { type BrokerMachine, startBroker } from '../../broker/start.js';
import { type ProcessIds, processIds } from '../../host/process-ids.js';
import { credentialFileValue } from '../../policy/routed-credentials.js';
import { type CliIO, defineCommand } from '../command.js';
import { InputError } from '../command-errors.js';
import type { AdminDeps } from '../deps.js';
import { required } from '../flags.js';

export const BROKER_HELP = `Usage: qwen-managed broker --dir DIR

Runs the credential broker of the install DIR in the foreground: one loopback listener for the model
and one per deployed profile's provider (DIR/broker/broker.json, written by render). It accepts a
connection only from the users deployment.json's broker.allow names (the kernel's socket table says
who calls), forwards only the pinned routes to the pinned origins, and adds the real credential,
which nothing else on the machine holds.

Start it as root: it reads the credential files, binds its ports, then becomes the broker's user
(broker.user). Under systemd (qwen-managed-broker.service with the install's broker/systemd.conf
drop-in) it starts as that user and reads the credentials from $CREDENTIALS_DIRECTORY.

One audit line per request (JSON, keyed by the caller's uid) goes to stdout; start-up lines and
refusals to stderr. SIGTERM or SIGINT stops it (requests in flight get 5 s to finish).

Options:
  --dir DIR   the install directory (required)
  -h, --help  show this help

Exit codes: 0 stopped by a signal, 1 refused to start or stopped because stdout took no more audit
lines (the reason on stderr), 2 usage error.
`;

/** This process's ids: the command refused every platform but Linux before, and Linux has them all. */
function linuxIds(): ProcessIds {
  const ids = processIds(process);
  if (ids === undefined) throw new Error('broker: Node gives this process no user ids');
  return ids;
}

/** The broker's view of this process: its ids, the kernel tables, the user database, stdout/stderr. */
export function processMachine(io: CliIO): BrokerMachine {
  return {
    fs,
    env: io.env,
    ids: linuxIds(),
    accounts: (groups) => accountCache(groups, () => performance.now()),
    shellOf,
    lazyCodeCheck,
    peerUids: socketPeerUids,
    credentialValue: credentialFileValue,
    stdout: (line) => io.stdout.write(line),
    stderr: (line) => io.stderr.write(line),
    now: () => performance.now(),
    time: () => new Date().toISOString(),
  };
}

export interface BrokerDeps extends Pick<AdminDeps, 'onShutdownSignal' | 'hostPlatform'> {
  /** The machine the broker runs on (processMachine by default). */
  machine?(io: CliIO): BrokerMachine;
}

export const brokerCommand = defineCommand({
  name: 'broker',
  summary: 'Run the install’s credential broker (as root, or as its user under systemd)',
  help: BROKER_HELP,
  flags: { dir: { type: 'string' } },
  async run(flags, io, deps: BrokerDeps) {
    const dir = resolve(io.cwd, required('broker', 'dir', flags.dir));
    if (deps.hostPlatform !== 'linux')
      throw new InputError(
        'broker: the credential broker needs Linux: it learns who calls from /proc/net/tcp (Windows and macOS give Node no peer uid); keep the deployment without "broker" there',
      );
    let running: Awaited<ReturnType<typeof startBroker>>;
    try {
      running = await startBroker(dir, (deps.machine ?? processMachine)(io));
    } catch (error) {
      if (error instanceof BrokerStartError)
        throw new InputError(error.problems.map((p) => `broker: ${p}`).join('\n'));
      throw error;
    }
    let unregister = () => {};
    let auditLost: NodeJS.ErrnoException | undefined;
    await new Promise<void>((stop) => {
      unregister = deps.onShutdownSignal(stop);
      // Every request is audited: once stdout takes no more lines (its reader gone), no request may pass.
      io.stdout.once('error', (error: NodeJS.ErrnoException) => {
        auditLost = error;
        stop();
      });
    });
    unregister();
    if (auditLost !== undefined) {
      await running.stop(0);
      throw new InputError(
        `broker: stopped: its audit lines cannot be written to stdout (${auditLost.code ?? auditLost.message}), and no request may go unaudited. Fix: run it where its stdout is read (systemd gives it the journal), then start it again`,
      );
    }
    io.stderr.write('qwen-managed broker: stopping (requests in flight get 5 s)\n');
    await running.stop(5000);
    return 0;
  },
});
