// The reference Generic HTTP Search v1 server: node:http at the edge, the live index behind it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { parseJsonBytes } from '../text/json.js';
import { createBearerCheck } from './auth.js';
import type { SearchHit } from './index.js';
import { createLiveIndex } from './live-index.js';
import { createAccessLogger } from './logging.js';
import {
  type ApiError,
  DEFAULT_REQUEST_LIMITS,
  ERRORS,
  isJsonContentType,
  parseSearchBody,
} from './request.js';

export const SEARCH_PATH = '/v1/context/search';

export interface ContextServerOptions {
  /** Folder of `.md`, `.markdown` and `.txt` files to serve. */
  dir: string;
  /** Bearer token clients must present. */
  token: string;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Put the query text in access log lines (default false). */
  logQueries?: boolean;
  /** Where access log lines go; none are written without it. */
  log?: Writable;
  /** A search rescans the folder first when the last scan is at least this old (default 1000 ms). */
  rescanIntervalMs?: number;
}

export interface ContextServer {
  /** Origin to use as the provider's `baseUrl`, e.g. `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Rescans the folder now. */
  refresh(): Promise<void>;
}

/** The wire item of Generic HTTP Search v1. */
export interface WireItem {
  id: string;
  content: string;
  title: string;
  uri: string;
  score: number;
  updated_at: string;
}

export function toWireItem(hit: SearchHit): WireItem {
  return {
    id: hit.id,
    content: hit.content,
    title: hit.title,
    uri: hit.uri,
    score: hit.score,
    updated_at: hit.updatedAt,
  };
}

interface Outcome {
  status: number;
  items: number;
  error?: string;
  query?: string;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(payload.length),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(payload);
}

function sendError(res: ServerResponse, error: ApiError, headers: Record<string, string> = {}): Outcome {
  send(res, error.status, { error: { code: error.code, message: error.message } }, headers);
  return { status: error.status, items: 0, error: error.code };
}

/** The request-target's path, taken literally: URL parsing would read `//host/…` as a host. */
function pathOf(url: string | undefined): string {
  const target = url ?? '';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** Reads the body with a running cap; `undefined` once it exceeds `max` bytes. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      // Stop buffering; the rest is drained and dropped while the 413 goes out.
      req.off('data', onData);
      req.resume();
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export async function startContextServer(options: ContextServerOptions): Promise<ContextServer> {
  const checkAuth = createBearerCheck(options.token);
  const limits = DEFAULT_REQUEST_LIMITS;
  const index = createLiveIndex({ dir: options.dir, rescanIntervalMs: options.rescanIntervalMs ?? 1000 });
  const logAccess = createAccessLogger(options.log, options.logQueries === true);
  // Indexing before listening: a bad folder fails the start, and the first search is not slow.
  await index.refresh();

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<Outcome> {
    // Refusing before the body is read closes the connection, so an unread body is never drained.
    const refuse = (error: ApiError, headers: Record<string, string> = {}) =>
      sendError(res, error, req.complete ? headers : { ...headers, connection: 'close' });
    if (pathOf(req.url) !== SEARCH_PATH) return refuse(ERRORS.notFound);
    if (req.method !== 'POST') return refuse(ERRORS.methodNotAllowed, { allow: 'POST' });
    const auth = checkAuth(req.headers.authorization);
    if (auth !== 'ok') {
      const challenge = auth === 'missing' ? 'Bearer' : 'Bearer error="invalid_token"';
      return refuse(ERRORS.unauthorized, { 'www-authenticate': challenge });
    }
    if (!isJsonContentType(req.headers['content-type'])) return refuse(ERRORS.unsupportedMediaType);
    if (Number(req.headers['content-length'] ?? '0') > limits.maxBodyBytes) {
      return refuse(ERRORS.payloadTooLarge);
    }
    const bytes = await readBody(req, limits.maxBodyBytes);
    if (bytes === undefined) return refuse(ERRORS.payloadTooLarge);
    const json = parseJsonBytes(bytes);
    if (!json.ok) return sendError(res, ERRORS.invalidJson);
    const request = parseSearchBody(json.value, limits);
    if (!request.ok) return sendError(res, request.error);
    const hits = await index.search(request.query, request.limit);
    send(res, 200, { items: hits.map(toWireItem) });
    return { status: 200, items: hits.length, query: request.query };
  }

  const server = createServer({ requestTimeout: 15_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const finish = (outcome: Outcome) => {
      logAccess({
        time: new Date(),
        method: req.method ?? '-',
        route: pathOf(req.url) === SEARCH_PATH ? SEARCH_PATH : '-',
        status: outcome.status,
        durationMs: performance.now() - started,
        items: outcome.items,
        ...(outcome.error === undefined ? {} : { error: outcome.error }),
        ...(outcome.query === undefined ? {} : { query: outcome.query }),
      });
    };
    answer(req, res).then(finish, () => {
      // Internal details (paths, errno) stay out of the response.
      if (!res.headersSent) finish(sendError(res, ERRORS.internal));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      // Idle keep-alive connections would otherwise hold close() open for seconds.
      server.closeAllConnections();
    });
    return closing;
  };

  return { url: `http://${host}:${address.port}`, port: address.port, close, refresh: index.refresh };
}
