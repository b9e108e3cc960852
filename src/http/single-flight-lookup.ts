// One host-name lookup in flight per name: getaddrinfo runs on libuv's threadpool, nothing cancels
// it, and libuv gives slow work such as lookups at most half the pool (2 of 4 threads). A provider
// whose DNS never answers therefore holds a thread per lookup for the resolver's whole timeout, and
// two of them stall every lookup of the process behind them — in a long-lived host, the model's too.
import type * as dns from 'node:dns';
import type * as net from 'node:net';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => void;
export type Lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/**
 * `resolve` with one lookup in flight per host name and options: later connections to the same host
 * wait for its answer (and fail at their own deadline when it never comes) instead of taking another
 * thread. Measured with undici in the broker: a localhost connection waited 10.4 s behind four stuck
 * lookups and failed; with the OpenClaw plugin (one process, one search per turn): a localhost
 * lookup waited 81 s after six turns to such a provider.
 */
export function singleFlightLookup(resolve: Lookup): Lookup {
  const waiting = new Map<string, LookupCallback[]>();
  return (hostname, options, callback) => {
    const key = `${hostname}\0${JSON.stringify(options)}`;
    const queue = waiting.get(key);
    if (queue !== undefined) {
      queue.push(callback);
      return;
    }
    waiting.set(key, [callback]);
    resolve(hostname, options, (error, address, family) => {
      const callbacks = waiting.get(key) ?? [];
      waiting.delete(key);
      // Each connection gets its own list: Node's family fallback may work through it.
      for (const each of callbacks) each(error, Array.isArray(address) ? [...address] : address, family);
    });
  };
}

let shared: Lookup | undefined;
let chosen: Lookup | undefined;

/**
 * Makes every later lookup of this process ask `resolve` (still one per host name at a time): for a
 * runtime that lives in a host's process and must never hold up its end (the OpenClaw plugin:
 * getent-lookup.ts). Before the first lookup; Node's lookup otherwise.
 */
export function useLookup(resolve: Lookup): void {
  chosen = resolve;
}

/**
 * The process's one single-flight lookup on Node's resolver, for every connection the runtimes open:
 * a host that lives on (the OpenClaw plugin in OpenClaw's process, the MCP server) searches again and
 * again in one process. node:dns is loaded on the first lookup (an IP address never asks for one).
 */
export function processLookup(): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    shared ??= singleFlightLookup(chosen ?? (process.getBuiltinModule('node:dns').lookup as Lookup));
    shared(hostname, options, callback);
  }) as net.LookupFunction;
}
