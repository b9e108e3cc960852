// Who may receive a credential on this machine. A loopback upstream (a local model server, a local
// knowledge base) is a port, and a port is whoever listens on it: while the real service is stopped, a
// developer could listen there and receive every caller's credential. So before the first byte of a
// new upstream connection to a loopback address leaves, the broker asks the kernel who holds the
// other end, and sends on only when that is root or the broker's own user, or the port is one only
// root (or a capability the administrator granted) can bind. Pure; the lookups are injected.
import { canonicalAddress } from '../host/proc-net.js';

export interface UpstreamEnd {
  /** The upstream's address and port, as the connected socket reports them. */
  address: string;
  port: number;
}

export interface OwnerFacts {
  /** The uid holding the upstream's end of the connection (kernel socket table); undefined: none found. */
  ownerUid: number | undefined;
  /** The broker's own uid (after dropping privileges). */
  brokerUid: number;
  /** /proc/sys/net/ipv4/ip_unprivileged_port_start; undefined when unreadable (then no port counts as privileged). */
  unprivilegedPortStart: number | undefined;
}

/** True for 127.0.0.0/8 and ::1 (an IPv4-mapped loopback address included). */
export function isLoopbackAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  return canonical !== undefined && (canonical.startsWith('127.') || canonical === '0:0:0:0:0:0:0:1');
}

/**
 * Why the broker must not send a credential over this connection, or undefined when it may. Only a
 * loopback end is judged: across the network, the upstream's TLS certificate says who answers.
 */
export function upstreamOwnerProblem(end: UpstreamEnd, facts: OwnerFacts): string | undefined {
  if (!isLoopbackAddress(end.address)) return undefined;
  // Below the unprivileged start only root, or a process the administrator gave the capability, binds.
  if (facts.unprivilegedPortStart !== undefined && end.port < facts.unprivilegedPortStart) return undefined;
  if (facts.ownerUid === 0 || facts.ownerUid === facts.brokerUid) return undefined;
  const holder =
    facts.ownerUid === undefined ? 'a process the kernel table does not show' : `uid ${facts.ownerUid}`;
  const start = facts.unprivilegedPortStart ?? 0;
  const fix =
    start > 0
      ? `have the upstream listen on a port below ${start}, which only root can bind, or run it as root`
      : 'run the upstream as root: on this host any user may bind any port';
  return `the upstream's loopback port ${end.port} is held by ${holder}, not root or the broker's user: no credential is sent there (${fix})`;
}
