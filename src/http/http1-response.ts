// An incremental HTTP/1.1 response parser for the node:net / node:tls transport: status line,
// headers, then the body framed by chunked encoding, content-length or the end of the connection.
// Pure: bytes in, events out. Strict where leniency would hide a broken or hostile server.

export type ParserEvent =
  | { type: 'head'; status: number; headers: Record<string, string> }
  | { type: 'data'; chunk: Uint8Array }
  | { type: 'end' };

export class HttpParseError extends Error {
  override readonly name = 'HttpParseError';
}

/** A response head larger than this is refused (providers send a few hundred bytes). */
export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 4096;

const STATUS_LINE = /^HTTP\/1\.[01] ([1-9]\d\d)(?: [^\r\n]*)?$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

type Framing =
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked' }
  | { kind: 'close' }
  | { kind: 'none' };
type ChunkState = 'size' | 'data' | 'data-crlf' | 'trailers';

export class ResponseParser {
  private buffered: Buffer = Buffer.alloc(0);
  private framing: Framing | undefined;
  private chunkState: ChunkState = 'size';
  private chunkRemaining = 0;
  private done = false;

  /** Feeds bytes from the socket; returns what they completed. */
  push(bytes: Uint8Array): ParserEvent[] {
    if (this.done) return [];
    this.buffered = this.buffered.length === 0 ? Buffer.from(bytes) : Buffer.concat([this.buffered, bytes]);
    const events: ParserEvent[] = [];
    for (;;) {
      if (this.done) return events;
      if (this.framing === undefined) {
        if (!this.parseHead(events)) return events;
        continue;
      }
      if (!this.parseBody(events)) return events;
    }
  }

  /** The connection ended: only a close-delimited body may end this way. */
  finish(): ParserEvent[] {
    if (this.done) return [];
    if (this.framing?.kind === 'close') {
      this.done = true;
      return [{ type: 'end' }];
    }
    throw new HttpParseError('the connection ended before the response was complete');
  }

  private parseHead(events: ParserEvent[]): boolean {
    const end = this.buffered.indexOf(HEAD_END);
    if (end === -1) {
      if (this.buffered.length > MAX_HEAD_BYTES) throw new HttpParseError('response head too large');
      return false;
    }
    if (end > MAX_HEAD_BYTES) throw new HttpParseError('response head too large');
    const lines = this.buffered.subarray(0, end).toString('latin1').split('\r\n');
    this.buffered = this.buffered.subarray(end + HEAD_END.length);
    const status = STATUS_LINE.exec(lines[0] ?? '');
    if (status === null) throw new HttpParseError('malformed status line');
    const code = Number(status[1]);
    const headers: Record<string, string> = Object.create(null);
    for (const line of lines.slice(1)) {
      // Obsolete line folding and anything else irregular is refused, never guessed at.
      const header = HEADER_LINE.exec(line);
      if (header === null) throw new HttpParseError('malformed header line');
      const name = header[1]!.toLowerCase();
      const value = header[2]!;
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    // Interim responses (100 Continue, 103 Early Hints) precede the real one.
    if (code < 200) {
      if (code === 101) throw new HttpParseError('unexpected protocol switch');
      return true;
    }
    this.framing = framingOf(code, headers);
    events.push({ type: 'head', status: code, headers: { ...headers } });
    if (this.framing.kind === 'none' || (this.framing.kind === 'length' && this.framing.remaining === 0)) {
      this.done = true;
      events.push({ type: 'end' });
    }
    return true;
  }

  private parseBody(events: ParserEvent[]): boolean {
    const framing = this.framing!;
    if (this.buffered.length === 0 && !(framing.kind === 'chunked' && this.chunkState !== 'data'))
      return false;
    if (framing.kind === 'close') {
      events.push({ type: 'data', chunk: this.buffered });
      this.buffered = Buffer.alloc(0);
      return false;
    }
    if (framing.kind === 'length') {
      const take = Math.min(framing.remaining, this.buffered.length);
      events.push({ type: 'data', chunk: this.buffered.subarray(0, take) });
      this.buffered = this.buffered.subarray(take);
      framing.remaining -= take;
      if (framing.remaining === 0) {
        // Bytes after the declared length are ignored: the connection is closed by us anyway.
        this.done = true;
        events.push({ type: 'end' });
      }
      return false;
    }
    return this.parseChunked(events);
  }

  private parseChunked(events: ParserEvent[]): boolean {
    switch (this.chunkState) {
      case 'size': {
        const line = this.takeLine();
        if (line === undefined) return false;
        const size = /^([0-9A-Fa-f]{1,8})[ \t]*(?:;.*)?$/.exec(line);
        if (size === null) throw new HttpParseError('malformed chunk size');
        this.chunkRemaining = Number.parseInt(size[1]!, 16);
        this.chunkState = this.chunkRemaining === 0 ? 'trailers' : 'data';
        return true;
      }
      case 'data': {
        if (this.buffered.length === 0) return false;
        const take = Math.min(this.chunkRemaining, this.buffered.length);
        events.push({ type: 'data', chunk: this.buffered.subarray(0, take) });
        this.buffered = this.buffered.subarray(take);
        this.chunkRemaining -= take;
        if (this.chunkRemaining === 0) this.chunkState = 'data-crlf';
        return true;
      }
      case 'data-crlf': {
        if (this.buffered.length < 2) return false;
        if (this.buffered[0] !== 0x0d || this.buffered[1] !== 0x0a)
          throw new HttpParseError('malformed chunk end');
        this.buffered = this.buffered.subarray(2);
        this.chunkState = 'size';
        return true;
      }
      case 'trailers': {
        const line = this.takeLine();
        if (line === undefined) return false;
        if (line === '') {
          this.done = true;
          events.push({ type: 'end' });
        }
        return true;
      }
    }
  }

  private takeLine(): string | undefined {
    const end = this.buffered.indexOf(CRLF);
    if (end === -1) {
      if (this.buffered.length > MAX_CHUNK_LINE) throw new HttpParseError('chunk line too long');
      return undefined;
    }
    if (end > MAX_CHUNK_LINE) throw new HttpParseError('chunk line too long');
    const line = this.buffered.subarray(0, end).toString('latin1');
    this.buffered = this.buffered.subarray(end + CRLF.length);
    return line;
  }
}

/** How the body of a response is delimited (RFC 9112 §6.3, for responses to a POST). */
function framingOf(status: number, headers: Record<string, string>): Framing {
  if (status === 204 || status === 304) return { kind: 'none' };
  const transferEncoding = headers['transfer-encoding'];
  if (transferEncoding !== undefined) {
    const codings = transferEncoding.split(',').map((c) => c.trim().toLowerCase());
    // Transfer-Encoding wins over Content-Length; a non-chunked final coding runs to the close.
    return codings.at(-1) === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  }
  const contentLength = headers['content-length'];
  if (contentLength !== undefined) {
    const values = new Set(contentLength.split(',').map((v) => v.trim()));
    const [value] = values;
    // Conflicting or malformed lengths are a classic smuggling signal: refuse.
    if (values.size !== 1 || value === undefined || !/^\d{1,15}$/.test(value)) {
      throw new HttpParseError('invalid content-length');
    }
    return { kind: 'length', remaining: Number(value) };
  }
  return { kind: 'close' };
}
