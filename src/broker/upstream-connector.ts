// undici's connector for the broker's upstreams, with the owner check of upstream-owner.ts between
// the connection and its first byte: a connection the check refuses is destroyed before the request
// (and its credential) is written, and the request fails with UntrustedUpstreamError.
import type * as net from 'node:net';
import { buildConnector } from 'undici';
import { type OwnerFacts, upstreamOwnerProblem } from './upstream-owner.js';

/** How long a connection whose upstream end has no row yet waits before it is looked up again. */
const RECHECK_MS = 20;

export class UntrustedUpstreamError extends Error {
  readonly code = 'QM_UNTRUSTED_UPSTREAM';
}

export function ownerCheckedConnector(
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
