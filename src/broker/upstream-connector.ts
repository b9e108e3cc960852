// The broker's upstream dispatcher: undici, with the owner check of upstream-owner.ts between each
// new connection and its first byte: a connection the check refuses is destroyed before the request
// (and its credential) is written, and the request fails with UntrustedUpstreamError.
import * as dns from 'node:dns';
import type * as net from 'node:net';
import { buildConnector, EnvHttpProxyAgent } from 'undici';
import { type Lookup, singleFlightLookup } from '../http/single-flight-lookup.js';
import { type OwnerFacts, upstreamOwnerProblem } from './upstream-owner.js';

/** How long a connection whose upstream end has no row yet waits before it is looked up again. */
const RECHECK_MS = 20;

export class UntrustedUpstreamError extends Error {
  readonly code = 'QM_UNTRUSTED_UPSTREAM';
}

function ownerCheckedConnector(
  options: buildConnector.BuildOptions,
  facts: (socket: net.Socket) => OwnerFacts,
): buildConnector.connector {
  const connect = buildConnector(options);
  return (target, callback) => {
    connect(target, (...result) => {
      if (result[0] !== null) return callback(result[0], null);
      const socket = result[1];
      const end = { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 };
      const finish = (problem: string | undefined): void => {
        if (problem === undefined) {
          callback(null, socket);
          return;
        }
        socket.destroy();
        callback(new UntrustedUpstreamError(problem), null);
      };
      const first = facts(socket);
      const problem = upstreamOwnerProblem(end, first);
      // Our end can be told "connected" a moment before the kernel files the upstream's end as
      // ESTABLISHED (the last ACK of the handshake): a row not found yet is looked for once more.
      if (problem !== undefined && first.ownerUid === undefined)
        setTimeout(() => finish(upstreamOwnerProblem(end, facts(socket))), RECHECK_MS);
      else finish(problem);
    });
  };
}

/**
 * The dispatcher the broker sends through. Its own environment (the unit's `Environment=`) decides
 * the upstream proxy, with the standard variables and undici's NO_PROXY rules: developers' variables
 * never reach it. `ca` replaces Node's roots (pass them too to keep them).
 */
export function brokerUpstream(
  env: Readonly<Record<string, string | undefined>>,
  ca: string[] | undefined,
  facts: (socket: net.Socket) => OwnerFacts,
): EnvHttpProxyAgent {
  const httpProxy = env['HTTP_PROXY'] ?? env['http_proxy'];
  const httpsProxy = env['HTTPS_PROXY'] ?? env['https_proxy'];
  const noProxy = env['NO_PROXY'] ?? env['no_proxy'];
  return new EnvHttpProxyAgent({
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
    // Every upstream connection: a loopback port held by anyone but root or the broker gets no credential.
    connect: ownerCheckedConnector(
      {
        ...(ca === undefined ? {} : { ca }),
        lookup: singleFlightLookup(dns.lookup as Lookup) as net.LookupFunction,
      },
      facts,
    ),
    ...(ca === undefined ? {} : { requestTls: { ca } }),
  });
}
