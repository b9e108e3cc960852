// Host-name lookups for a runtime inside another program's process (the OpenClaw plugin): the C
// library's getaddrinfo run as a program, so a lookup the resolver never answers does not keep the
// host's event loop alive. Only the plugin's bundle carries it (single-flight-lookup.ts, useLookup).
import type { Lookup } from './single-flight-lookup.js';

/** The C library's own getaddrinfo as a program: the same nsswitch, /etc/hosts and resolv.conf. */
const GETENT = '/usr/bin/getent';
const GETENT_DATABASE: Readonly<Record<number, string>> = { 0: 'ahosts', 4: 'ahostsv4', 6: 'ahostsv6' };

/** The addresses of `getent ahosts` output (one line per address and socket type), in its order. */
export function getentAddresses(output: string): { address: string; family: number }[] {
  const addresses: { address: string; family: number }[] = [];
  for (const line of output.split('\n')) {
    const [address, type] = line.trim().split(/\s+/);
    if (type !== 'STREAM' || address === undefined) continue;
    const family = address.includes(':') ? 6 : 4;
    if (!addresses.some((each) => each.address === address)) addresses.push({ address, family });
  }
  return addresses;
}

/**
 * getaddrinfo in a child process (`getent`) the host does not wait for. A getaddrinfo request keeps
 * the event loop of the process that made it alive until the resolver gives up, and nothing cancels
 * it — in a worker thread too (measured on Node 24.22.3: the process ended only with the lookup, at
 * exit it joins the worker): made in OpenClaw's process, a provider host whose DNS never answers held
 * it 7.7 s past the turn (148 s with `timeout:30 attempts:5`, docs/openclaw.md). The child is
 * unref'd: the host ends with its own work, the child with the resolver. Same resolver, same answers;
 * without getent, Node's lookup. `closed` runs after each child's 'close' was handled (a test waits
 * for it, not for a time, before it counts the answers).
 */
export function getentLookup(getent = GETENT, closed?: () => void): Lookup {
  const dns = process.getBuiltinModule('node:dns');
  let missing = false;
  return (hostname, options, callback) => {
    if (missing) return (dns.lookup as Lookup)(hostname, options, callback);
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const { spawn } = process.getBuiltinModule('node:child_process');
    let child: import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, null>;
    try {
      child = spawn(getent, [GETENT_DATABASE[family] ?? 'ahosts', '--', hostname], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (error) {
      return callback(error as NodeJS.ErrnoException, undefined);
    }
    let output = '';
    // A child that could not start emits 'close' after its 'error' (measured on Node 20 and 24):
    // the error answers, the close must not answer again.
    let failed = false;
    child.stdout.setEncoding('utf8').on('data', (data: string) => (output += data));
    child.on('error', (error: NodeJS.ErrnoException) => {
      failed = true;
      if (error.code !== 'ENOENT') return callback(error, undefined);
      missing = true;
      (dns.lookup as Lookup)(hostname, options, callback);
    });
    // Every other ending answers (a killed child too): single-flight waits for this answer.
    const answerOnClose = () => {
      if (failed) return;
      const addresses = getentAddresses(output);
      if (addresses.length === 0) {
        const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname,
        });
        return callback(error, undefined);
      }
      if (options.all === true) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    child.on('close', () => {
      try {
        answerOnClose();
      } finally {
        closed?.();
      }
    });
    // Neither the child nor its pipe keeps the host alive: a lookup the resolver never answers ends
    // with the resolver, not with the host.
    child.unref();
    (child.stdout as unknown as import('node:net').Socket).unref();
  };
}
