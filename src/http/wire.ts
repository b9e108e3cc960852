// The byte stream one HTTP exchange runs over: a net or tls socket (wire-net.ts), reduced to the
// few calls the exchange in transport-node.ts makes.

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
