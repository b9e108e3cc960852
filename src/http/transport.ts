// The seam between the HTTP client rules (client.ts) and the wire. Two implementations:
// transport-node.ts (default, cheap start) and transport-proxy.ts (undici, only when a proxy is set).

export interface TransportRequest {
  /** Absolute http(s) URL. */
  url: string;
  /** Request headers; the transport adds `content-length` and nothing that carries data. */
  headers: Readonly<Record<string, string>>;
  /** Request body, sent as UTF-8. */
  body: string;
  /** Aborts connect, the wait for headers and every body read. */
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  /** The raw body. Iteration throws when the connection fails or the signal aborts. */
  body: AsyncIterable<Uint8Array>;
  /** Stops reading and releases the connection; iteration then throws. Safe to call more than once. */
  cancel(): void;
}

export interface Transport {
  /** Sends one POST. Rejects (with any error) when no response head arrives. */
  post(request: TransportRequest): Promise<TransportResponse>;
}

/** A transport plus the resources behind it; `close()` must leave nothing that keeps Node alive. */
export interface TransportHandle {
  transport: Transport;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Provider timeout: the backstop for connect, headers and body idle time. */
  timeoutMs: number;
}
