// The byte stream one HTTP exchange runs over, whatever carries it: Node's TCP handle directly
// (wire-tcp.ts, the cheap start for IP-literal http origins) or a net/tls socket (wire-net.ts).

/** Where a wire delivers what happens on the connection. Nothing is delivered after destroy(). */
export interface WireSink {
  data(chunk: Uint8Array): void;
  /** The peer closed its side cleanly. */
  end(): void;
  /** Refused, reset, or any other failure. The message never names a host. */
  error(error: Error): void;
}

export interface Wire {
  /** Queues UTF-8 text; writes before the connection is up are sent once it is. */
  write(text: string): void;
  /** Stops and restarts reading (back-pressure for a body nobody reads yet). */
  pause(): void;
  resume(): void;
  /** Closes the connection at once. Safe to call more than once. */
  destroy(): void;
}

/** Opens one connection and starts reading into the sink. */
export type Dial = (sink: WireSink) => Wire;
