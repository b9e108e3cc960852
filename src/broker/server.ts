// The forwarding server: one loopback HTTP listener per broker.json listener. Per connection it asks
// the kernel who is calling (never anything the caller sends; every connection accepted together in
// one read of the kernel's tables); per request it admits the caller, matches the pinned routes,
// forwards only the listener's listed caller headers (never a credential or re-routing one), removes
// every held credential from the body, adds the real credential, forwards to the pinned origin
// without following redirects, streams the answer back (never a held credential in it), aborts
// upstream when the caller goes away, and writes one audit line — also for what never became a
// request.
//
// I/O is injected (the peer lookup, admission, upstream dispatcher, audit sink and clock), so tests
// drive it with real sockets and real loopback upstreams.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import * as http from 'node:http';
import type * as net from 'node:net';
import type * as stream from 'node:stream';
import type { Dispatcher } from 'undici';
import {
  BROKER_CALLER_LIMITS,
  BROKER_JSON_DEPTH,
  BROKER_LOOKUP_GATHER_MAX_MS,
  type BrokerCallerLimits,
} from '../base/limits.js';
import {
  BROKER_HEALTH_PATH,
  BROKER_HOST,
  CALLER_CREDENTIAL_HEADERS,
  CALLER_REROUTING_HEADERS,
  MODEL_LISTENER,
} from '../contracts/broker.js';
import type { BrokerConfig, BrokerListener } from '../contracts/broker-config.js';
import type { Admission } from './allow.js';
import { neutraliseAnswerControls } from './answer-controls.js';
import { type AuditDecision, type AuditRecord, auditLine, auditPath } from './audit.js';
import { matchRoute, ROUTE_REFUSALS } from './routes.js';
import { headersCarrySecret, stripSecrets, watchAnswer } from './strip-secrets.js';
import { UntrustedUpstreamError } from './upstream-connector.js';

/** What the broker sends upstream without a total deadline (the model): the idle bounds only. */
export interface IdleTimeouts {
  headersMs: number;
  bodyMs: number;
}

export interface BrokerServerOptions {
  config: BrokerConfig;
  /** Credential values by variable name (read before the privilege drop). */
  credentials: ReadonlyMap<string, string>;
  /** The uid at the other end of each accepted connection, from the kernel's socket table. */
  peerUids(sockets: readonly net.Socket[]): ReadonlyArray<number | undefined>;
  admit(uid: number): Admission;
  upstream: Dispatcher;
  /** Receives one line per request. */
  audit(line: string): void;
  /** Monotonic milliseconds. */
  now(): number;
  /** Wall-clock ISO time for the audit. */
  time(): string;
  idle: IdleTimeouts;
  /** What one caller may hold: its connections, and the time its requests take to arrive (tests shorten them). */
  callerLimits?: BrokerCallerLimits;
}

export interface BrokerServer {
  /** Binds every listener on 127.0.0.1; rejects (closing what was bound) when one cannot bind. */
  listen(): Promise<void>;
  /** The bound port of each listener (its configured port, or the one the OS chose for port 0). */
  ports(): Map<string, number>;
  /** Stops accepting, lets requests in flight finish up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void>;
}

/** The connection-level headers a proxy never forwards, either way (RFC 9110 §7.6.1). */
const CONNECTION_HEADERS = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
];

/** Request headers not forwarded: the connection's, and ours to set. */
const HOP_BY_HOP = new Set([
  ...CONNECTION_HEADERS,
  'host',
  'content-length',
  // The body's description is the broker's: it sends JSON it checked, as it is.
  'content-type',
  'content-encoding',
  'expect',
  // Nothing about the caller's network position travels upstream.
  'forwarded',
  'via',
  // The answer must come back readable, so the broker can see a credential echoed in it (below).
  'accept-encoding',
]);

/** Response headers that would act on the caller's connection, or hand it a cookie for nothing. */
const RESPONSE_DROPPED = new Set([...CONNECTION_HEADERS, 'set-cookie']);

/** Why an answer that echoes a held credential never reaches the caller (answer and audit). */
const ECHO_REFUSAL = 'the upstream answer carried a credential the broker holds';

/**
 * The status of the refusal of an echoing answer: the upstream's own when it refused the request
 * (4xx), so the caller retries exactly what it would have retried without the broker; else 502.
 * Measured on Qwen 0.24.4: a 400 quoting the key answered 502 was sent 28 times (seven attempts of
 * four tries each, every one echoed again) over ~95 s before the developer saw the refusal.
 */
function echoRefusalStatus(upstreamStatus: number): number {
  return upstreamStatus >= 400 && upstreamStatus < 500 ? upstreamStatus : 502;
}

/** An error answer in the shape OpenAI-compatible clients show (Qwen prints `error.message`). */
function errorBody(message: string, code: string): string {
  return JSON.stringify({
    error: { message: `qwen-managed broker: ${message}`, type: 'broker_error', code },
  });
}

/** The headers a message's `Connection` names: hop-by-hop for that message alone (RFC 9110 §7.6.1). */
function connectionNamed(connection: string | string[] | undefined): string[] {
  const text = Array.isArray(connection) ? connection.join(',') : (connection ?? '');
  return text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  listener: BrokerListener,
  credential: string,
  bodyLength: number,
): Record<string, string> {
  const dropped = new Set([
    ...CALLER_CREDENTIAL_HEADERS,
    ...CALLER_REROUTING_HEADERS,
    listener.header.name.toLowerCase(),
    ...connectionNamed(incoming.connection).map((name) => name.replaceAll('_', '-')),
  ]);
  // Only the listed headers pass: any other could pick another tenant, bill, route or feature upstream.
  const listed = new Set(listener.callerHeaders);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming)) {
    // CGI and WSGI servers read `x_api_key` as `X-Api-Key`: judged with `-` for `_`.
    const seen = name.replaceAll('_', '-');
    if (
      value === undefined ||
      HOP_BY_HOP.has(seen) ||
      dropped.has(seen) ||
      seen.startsWith('x-forwarded-') ||
      !listed.has(name)
    )
      continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers[listener.header.name.toLowerCase()] = `${listener.header.prefix}${credential}`;
  // An answer the broker can read: a compressed one would carry an echoed credential past its watch.
  headers['accept-encoding'] = 'identity';
  if (bodyLength > 0) {
    headers['content-length'] = String(bodyLength);
    // The body is the JSON the broker checked, so it says so: under a caller's form or text type the
    // upstream would read other fields (`%xx` decoded, `&` splitting a string) than the ones checked.
    headers['content-type'] = 'application/json';
  }
  return headers;
}

/**
 * The codings of an upstream answer the broker cannot read through (undefined: none). undici removes
 * only the chunked framing, so any other transfer coding (`gzip, chunked`) reaches the caller as it
 * came, like a content coding.
 */
function unreadableCoding(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): string | undefined {
  const codings = (name: string): string[] =>
    String(headers[name] ?? '')
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '' && c !== 'identity');
  const found = [
    ...codings('content-encoding'),
    ...codings('transfer-encoding').filter((c) => c !== 'chunked'),
  ];
  return found.length === 0 ? undefined : found.join(', ');
}

/** Reads the request body up to `max` bytes; undefined when it is larger (the rest is not read). */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared > max) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Drops an upstream body the caller will not get (its destroy error has nowhere to go). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  const name = (error as { name?: unknown })?.name;
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    name === 'TimeoutError'
  );
}

export function createBrokerServer(options: BrokerServerOptions): BrokerServer {
  const { config } = options;
  const secrets = [...options.credentials.values()];
  const callers = new WeakMap<net.Socket, number | undefined>();
  const servers = new Map<string, http.Server>();
  const bound = new Map<string, number>();
  const inFlight = new Set<ServerResponse>();
  const limits = options.callerLimits ?? BROKER_CALLER_LIMITS;
  /** Open connections per caller uid. */
  const open = new Map<number, number>();
  const firstRequest = new WeakMap<net.Socket, NodeJS.Timeout>();

  /** Connections accepted and not yet looked up, in order (`known` resolves their lookup). */
  const waiting: Array<{ listener: BrokerListener; socket: net.Socket; known: () => void }> = [];
  /** Settles once the connection's caller is in `callers`: what arrives on it before waits for that. */
  const lookedUp = new WeakMap<net.Socket, Promise<void>>();
  /** Connections a request arrived on (before their lookup, it may), and connections refused at it. */
  const requested = new WeakSet<net.Socket>();
  const refused = new WeakSet<net.Socket>();
  /** How long the last lookup took: the next one waits as long for connections to join it. */
  let lastLookupMs = 0;
  /** When the last lookup ended (options.now()). */
  let lastLookupEnded = Number.NEGATIVE_INFINITY;

  /**
   * Who calls on every waiting connection, from one read of the kernel's tables. A read grows with
   * every socket on the host, and Node accepts one connection per event-loop turn: looked up one by
   * one, a flood's connections each paid a read, and every caller's next connection queued behind
   * them (measured: up to 18 s). Gathered for as long as the last read took, the reads keep pace.
   * Only connections that arrive back to back gather: one on a quiet broker is looked up at once
   * (gathering on every connection cost each brokered prompt ~4 ms in the bench, 1.18× vs 1.09×).
   */
  function lookUpWaiting(): void {
    const all = waiting.splice(0);
    // A connection already gone has no row to find: nothing is looked up, or served, for it.
    for (const w of all.filter((w) => w.socket.destroyed)) callers.set(w.socket, undefined);
    const batch = all.filter((w) => !w.socket.destroyed);
    const started = options.now();
    const uids = batch.length === 0 ? [] : options.peerUids(batch.map((w) => w.socket));
    lastLookupEnded = options.now();
    lastLookupMs = lastLookupEnded - started;
    batch.forEach(({ listener, socket }, i) => {
      if (!settle(listener, socket, uids[i])) refused.add(socket);
    });
    for (const w of all) w.known();
  }

  /** Records the caller of a connection and applies its bounds; false when the connection is refused. */
  function settle(listener: BrokerListener, socket: net.Socket, uid: number | undefined): boolean {
    callers.set(socket, uid);
    // Anyone on the host can connect: one caller's pile of connections is cut at its bound,
    // so it never holds the broker's descriptors for everyone (root is trusted anyway).
    const held = uid === undefined || uid === 0 ? undefined : (open.get(uid) ?? 0) + 1;
    if (held !== undefined && held > limits.connectionsPerUid) {
      unparsed(
        listener,
        socket,
        429,
        `more than ${limits.connectionsPerUid} connections of this caller are open`,
      );
      return false;
    }
    if (held !== undefined && uid !== undefined) {
      open.set(uid, held);
      socket.once('close', () => {
        const left = (open.get(uid) ?? 1) - 1;
        if (left === 0) open.delete(uid);
        else open.set(uid, left);
      });
    }
    if (requested.has(socket)) return true;
    // A connection that never completes a request head (not a byte of one, or a trickle)
    // is ended; Node's headersTimeout only starts at a request's first byte.
    const first = setTimeout(() => {
      unparsed(listener, socket, 408, 'no request arrived in time on this connection');
    }, limits.firstRequestMs);
    first.unref();
    firstRequest.set(socket, first);
    socket.once('close', () => clearTimeout(first));
    return true;
  }

  /**
   * Refuses what the HTTP server never hands to `serve` (its audit line included) and ends the
   * connection, answering as Node would — never into an answer already under way on it.
   */
  function unparsed(
    listener: BrokerListener,
    socket: net.Socket,
    status: number,
    reason: string,
    method = '',
  ): void {
    // Audited under the caller, so after the lookup.
    const pending = callers.has(socket) ? undefined : lookedUp.get(socket);
    if (pending !== undefined) {
      void pending.then(() => unparsed(listener, socket, status, reason, method));
      return;
    }
    const uid = callers.get(socket);
    options.audit(
      auditLine({
        time: options.time(),
        uid: uid ?? null,
        user: uid === undefined ? null : options.admit(uid).user,
        listener: listener.name,
        method,
        path: '',
        decision: 'refused',
        status,
        reason,
        bytesIn: 0,
        bytesOut: 0,
        ms: 0,
      }),
    );
    const answering = [...inFlight].some((res) => res.socket === socket);
    if (!socket.writable || answering) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`, () =>
      socket.destroy(),
    );
  }

  function handler(listener: BrokerListener) {
    return (req: IncomingMessage, res: ServerResponse): void => {
      // Last resort: whatever one request does ends that request, never the broker and every user's
      // traffic with it (its audit line is still written when the response closes).
      serve(listener, req, res).catch(() => res.destroy());
    };
  }

  async function serve(listener: BrokerListener, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = options.now();
    // A request may arrive before its connection's lookup: it is judged only after it.
    await lookedUp.get(req.socket);
    // Refused at the lookup (one connection too many): its refusal is that connection's audit line.
    if (refused.has(req.socket)) {
      res.destroy();
      return;
    }
    const uid = callers.get(req.socket);
    if (/^100-continue$/i.test(String(req.headers.expect ?? '').trim())) res.writeContinue();
    const method = req.method ?? '';
    const target = req.url ?? '';
    const admission = uid === undefined ? undefined : options.admit(uid);
    const record: AuditRecord = {
      time: options.time(),
      uid: uid ?? null,
      user: admission?.user ?? null,
      listener: listener.name,
      method,
      path: auditPath(target),
      decision: 'refused',
      status: 0,
      bytesIn: 0,
      bytesOut: 0,
      ms: 0,
    };
    inFlight.add(res);
    let written = false;
    res.once('close', () => {
      inFlight.delete(res);
      record.status = res.statusCode;
      record.ms = Math.round(options.now() - started);
      if (!written) {
        written = true;
        options.audit(auditLine(record));
      }
    });
    const answer = (status: number, decision: AuditDecision, message: string, code: string): void => {
      record.decision = decision;
      if (decision !== 'forwarded' && decision !== 'health') record.reason = message;
      const body = errorBody(message, code);
      record.bytesOut = Buffer.byteLength(body);
      // A refusal ends the connection: nothing more is read from a caller the broker refused.
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': String(record.bytesOut),
        ...(status === 403 ? { connection: 'close' } : {}),
      });
      res.end(body);
    };

    if (uid === undefined || admission === undefined) {
      answer(
        403,
        'refused',
        'cannot tell who is calling (no established connection of this caller in the kernel socket table)',
        'forbidden',
      );
      return;
    }
    if (!admission.allowed) {
      answer(
        403,
        'refused',
        `user ${admission.user ?? `uid ${uid}`} is not allowed to use the credential broker; ask your administrator to add you to broker.allow`,
        'forbidden',
      );
      return;
    }
    if (target === BROKER_HEALTH_PATH && method === 'GET') {
      const body = JSON.stringify({
        broker: 'qwen-managed',
        listener: listener.name,
        uid,
        user: admission.user,
      });
      record.decision = 'health';
      record.bytesOut = Buffer.byteLength(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(record.bytesOut) });
      res.end(body);
      return;
    }
    const match = matchRoute(listener.routes, method, target);
    if (!match.ok) {
      answer(403, 'refused', ROUTE_REFUSALS[match.reason], 'route_refused');
      return;
    }
    // What the audit line says if the connection closes during the read: the response's close (which
    // writes the line) comes before the read's rejection does.
    record.decision = 'failed';
    record.reason = 'the caller went away before its request body ended';
    let raw: Buffer | undefined;
    try {
      raw = await readBody(req, listener.maxBodyBytes);
    } catch {
      // The caller went away before its body ended (a close or a reset mid-upload): nothing to answer.
      res.destroy();
      return;
    }
    record.decision = 'refused';
    delete record.reason;
    if (raw === undefined) {
      answer(403, 'refused', `the request body is larger than ${listener.maxBodyBytes} bytes`, 'too_large');
      return;
    }
    record.bytesIn = raw.length;
    const stripped = stripSecrets(raw, secrets);
    if (!stripped.ok) {
      if (stripped.reason === 'too-deep')
        answer(
          403,
          'refused',
          `the request body's JSON is nested deeper than ${BROKER_JSON_DEPTH} levels`,
          'not_json',
        );
      else if (stripped.reason === 'rejoined')
        answer(
          403,
          'refused',
          'the request body holds a credential written around another occurrence of one',
          'credential_rejoined',
        );
      else answer(403, 'refused', 'the request body is not UTF-8 JSON', 'not_json');
      return;
    }
    if (stripped.removed > 0) record.stripped = stripped.removed;
    const credential = options.credentials.get(listener.credential);
    if (credential === undefined) {
      // broker.json names a credential the broker did not load: its start refuses that, so a bug.
      answer(502, 'failed', 'the broker holds no credential for this listener', 'no_credential');
      return;
    }

    const abort = new AbortController();
    const deadline =
      listener.timeoutMs === undefined
        ? undefined
        : setTimeout(() => abort.abort(new DOMException('deadline', 'TimeoutError')), listener.timeoutMs);
    // The caller went away (closed, reset, timed out): the upstream exchange ends with it.
    const cancel = (): void => {
      if (!res.writableFinished) abort.abort(new DOMException('caller gone', 'AbortError'));
    };
    res.once('close', cancel);
    try {
      let upstream: Dispatcher.ResponseData;
      try {
        upstream = await options.upstream.request({
          origin: listener.upstream,
          path: match.route.path,
          method: match.route.method as Dispatcher.HttpMethod,
          headers: upstreamHeaders(req.headers, listener, credential, stripped.body.length),
          body: stripped.body.length > 0 ? Buffer.from(stripped.body) : null,
          signal: abort.signal,
          headersTimeout: listener.timeoutMs ?? options.idle.headersMs,
          bodyTimeout: listener.timeoutMs ?? options.idle.bodyMs,
        });
      } catch (error) {
        if (res.destroyed) return;
        const timedOut = isTimeout(error) || isTimeout(abort.signal.reason);
        if (error instanceof UntrustedUpstreamError)
          answer(502, 'failed', error.message, 'upstream_untrusted');
        else if (timedOut) answer(504, 'failed', 'the upstream did not answer in time', 'upstream_timeout');
        else answer(502, 'failed', 'the upstream could not be reached', 'upstream_unreachable');
        return;
      }
      if (upstream.statusCode >= 300 && upstream.statusCode < 400) {
        // Never followed, never passed on: a Location could send the caller anywhere.
        discard(upstream.body);
        answer(
          502,
          'failed',
          'the upstream answered with a redirect, which the broker never follows',
          'redirect',
        );
        return;
      }
      const coding = unreadableCoding(upstream.headers);
      if (coding !== undefined) {
        // Asked for `identity`: an encoded answer could carry an echoed credential unseen.
        discard(upstream.body);
        answer(
          502,
          'failed',
          `the upstream answered in the coding ${JSON.stringify(coding)} although asked for identity; the broker passes on only answers it can read`,
          'upstream_encoded',
        );
        return;
      }
      if (headersCarrySecret(upstream.headers, secrets)) {
        // An upstream echoing what it received would hand the caller the credential itself.
        discard(upstream.body);
        answer(echoRefusalStatus(upstream.statusCode), 'failed', ECHO_REFUSAL, 'upstream_echo');
        return;
      }
      const headers: Record<string, string | string[]> = {};
      const named = new Set(connectionNamed(upstream.headers['connection']));
      for (const [name, value] of Object.entries(upstream.headers)) {
        if (value !== undefined && !RESPONSE_DROPPED.has(name) && !named.has(name)) headers[name] = value;
      }
      // The model's answer goes to a terminal through Qwen, which prints C1 controls raw: replaced
      // (answer-controls.ts), which may lengthen the body, so it goes chunked.
      const controls = listener.name === MODEL_LISTENER ? neutraliseAnswerControls() : undefined;
      if (controls !== undefined) delete headers['content-length'];
      // The head leaves with the first bytes passed on (as Node sends it anyway), so an echo in the
      // first chunk can still be refused; a later one cuts the answer before the credential.
      const head = (): void => {
        if (!res.headersSent) res.writeHead(upstream.statusCode, headers);
      };
      record.decision = 'forwarded';
      const watch = watchAnswer(secrets);
      try {
        for await (const received of upstream.body) {
          const seen = watch.push(received as Buffer);
          if (!seen.ok) {
            discard(upstream.body);
            if (!res.headersSent) {
              answer(echoRefusalStatus(upstream.statusCode), 'failed', ECHO_REFUSAL, 'upstream_echo');
              return;
            }
            record.decision = 'failed';
            record.reason = ECHO_REFUSAL;
            res.destroy();
            return;
          }
          const chunk = controls === undefined ? seen.pass : controls.push(seen.pass);
          if (chunk.length === 0) continue;
          head();
          record.bytesOut += chunk.length;
          // What arrives in one turn of the event loop leaves in one write: the last chunk and the
          // chunked terminator reach the caller together, so it wakes once, not twice (docs/
          // performance.md, "The broker's hop"); a stream's chunks still leave in the turn they arrive.
          res.cork();
          setImmediate(() => res.uncork());
          // Back-pressure: a slow caller slows the upstream read, and never grows memory.
          if (!res.write(chunk))
            await new Promise<void>((resolve) => {
              const done = () => {
                res.off('drain', done);
                res.off('close', done);
                resolve();
              };
              res.once('drain', done);
              res.once('close', done);
            });
          if (res.destroyed) break;
        }
        const rest =
          controls === undefined ? watch.end() : Buffer.concat([controls.push(watch.end()), controls.end()]);
        head();
        record.bytesOut += rest.length;
        res.end(rest);
      } catch {
        // The upstream broke off mid-answer (or the deadline hit): the caller sees a cut answer.
        record.decision = 'failed';
        record.reason = 'the upstream answer ended early';
        discard(upstream.body);
        res.destroy();
      }
    } finally {
      if (deadline !== undefined) clearTimeout(deadline);
      res.off('close', cancel);
    }
  }

  return {
    async listen() {
      try {
        for (const listener of config.listeners) {
          // A head or a body that trickles in holds a connection (and, admitted, a request) for no
          // one: Node ends it past these bounds (its clientError below audits it).
          const server = http.createServer(
            {
              headersTimeout: limits.headersMs,
              requestTimeout: limits.requestMs,
              connectionsCheckingInterval: limits.checkEveryMs,
            },
            handler(listener),
          );
          // Decided once per connection, from the kernel, with every connection accepted meanwhile.
          server.on('connection', (socket: net.Socket) => {
            let known = (): void => {};
            lookedUp.set(socket, new Promise<void>((resolve) => (known = resolve)));
            if (waiting.push({ listener, socket, known }) !== 1) return;
            // A quick last read, or none within its own duration (a quiet broker): nothing to gather,
            // the lookup runs right after this accept (no timer).
            const backToBack = options.now() - lastLookupEnded < lastLookupMs;
            const gather = backToBack ? Math.min(lastLookupMs, BROKER_LOOKUP_GATHER_MAX_MS) : 0;
            if (gather < 1) setImmediate(lookUpWaiting);
            else setTimeout(lookUpWaiting, gather);
          });
          const arrived = (req: IncomingMessage) => {
            requested.add(req.socket);
            clearTimeout(firstRequest.get(req.socket));
          };
          server.on('request', arrived);
          // `Expect: 100-continue`: the body is asked for once the caller is known (serve), not at the
          // head as Node would, so a caller is looked up while it still waits for the answer.
          server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
            arrived(req);
            handler(listener)(req, res);
          });
          // What never becomes a request — bytes the HTTP parser refuses (a smuggling attempt: two
          // Content-Lengths, Transfer-Encoding with Content-Length, a bare LF) and CONNECT — is
          // refused as Node would, and audited like any other refusal, under the caller's uid.
          server.on('clientError', (error: NodeJS.ErrnoException, socket: stream.Duplex) => {
            const code = error.code ?? '';
            // Past headersMs or requestMs: a request already admitted is audited by its own close.
            if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
              if ([...inFlight].some((res) => res.socket === socket)) socket.destroy();
              else unparsed(listener, socket as net.Socket, 408, 'the request did not arrive in time');
            } else if (code.startsWith('HPE_'))
              unparsed(
                listener,
                socket as net.Socket,
                code === 'HPE_HEADER_OVERFLOW' ? 431 : 400,
                `the request is not HTTP the broker reads (${code})`,
              );
            // A reset of the connection: no request to answer or audit.
            else socket.destroy();
          });
          server.on('connect', (req: IncomingMessage, socket: stream.Duplex) => {
            unparsed(listener, socket as net.Socket, 403, ROUTE_REFUSALS.target, req.method);
          });
          servers.set(listener.name, server);
          await new Promise<void>((resolve, reject) => {
            server.once('error', reject);
            server.listen({ host: BROKER_HOST, port: listener.port, exclusive: true }, () => {
              server.off('error', reject);
              resolve();
            });
          });
          bound.set(listener.name, (server.address() as net.AddressInfo).port);
        }
      } catch (error) {
        await Promise.all([...servers.values()].map((s) => new Promise((r) => s.close(r))));
        throw error;
      }
    },
    ports: () => new Map(bound),
    async close(graceMs) {
      const closed = [...servers.values()].map(
        (s) => new Promise<void>((resolve) => s.close(() => resolve())),
      );
      for (const server of servers.values()) server.closeIdleConnections();
      const timer = setTimeout(() => {
        for (const res of inFlight) res.destroy();
        for (const server of servers.values()) server.closeAllConnections();
      }, graceMs);
      await Promise.all(closed);
      clearTimeout(timer);
    },
  };
}
