// Is the credential broker there for this launch? The launcher asks before it starts Qwen, verify on
// the real install: each listener's port must be held by root or the broker's user (the kernel's
// socket table says who holds it) and must answer the health request for this caller. Otherwise
// Qwen would retry a refused model connection for about 109 s and then print a bare ECONNREFUSED —
// or, worse, talk to whoever took the port. The owner judgement is pure; the health request takes an
// injected connect.
import type * as net from 'node:net';
import { BROKER_HEALTH_PATH, BROKER_UNIT } from '../contracts/broker.js';
import { ResponseParser } from '../http/http1-response.js';
import { type ByteOrder, listenerUid, type SocketTables } from './proc-net.js';

export interface BrokerListenerRef {
  name: string;
  port: number;
}

export interface BrokerRef {
  user: string;
  host: string;
  listeners: readonly BrokerListenerRef[];
}

const ASK = `ask your administrator to start the credential broker (systemctl start ${BROKER_UNIT})`;

function where(host: string, listener: BrokerListenerRef): string {
  return `${host}:${listener.port} (${listener.name === 'model' ? 'model traffic' : `the ${listener.name} provider`})`;
}

/**
 * The listeners whose port is free or held by someone other than root or the broker's user, one
 * line for all that are free (the broker is not running) and one per foreign owner.
 */
export function listenerOwnerProblems(
  broker: BrokerRef,
  listeners: readonly BrokerListenerRef[],
  tables: SocketTables,
  order: ByteOrder,
  brokerUid: number | undefined,
): string[] {
  const problems: string[] = [];
  const free: BrokerListenerRef[] = [];
  for (const listener of listeners) {
    const uid = listenerUid(tables, { address: broker.host, port: listener.port }, order);
    if (uid === undefined) free.push(listener);
    else if (uid !== 0 && uid !== brokerUid) {
      problems.push(
        `${where(broker.host, listener)} is held by uid ${uid}, not by the credential broker (user ${broker.user}); nothing was started — ask your administrator: someone else took the broker's port`,
      );
    }
  }
  if (free.length > 0) {
    problems.unshift(
      `the credential broker is not running: nothing listens on ${free.map((l) => where(broker.host, l)).join(', ')}; ${ASK}`,
    );
  }
  return problems;
}

export type HealthAnswer =
  | { kind: 'ok' }
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; why: string };

/** Sends `GET <health path>` and reads the answer (at most 64 KiB) within `timeoutMs`. */
export function requestHealth(
  connect: () => net.Socket,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<HealthAnswer> {
  return new Promise((resolve) => {
    const socket = connect();
    const parser = new ResponseParser();
    let status = 0;
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const finish = (answer: HealthAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ kind: 'failed', why: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    const done = (): void => {
      if (status === 200) {
        finish({ kind: 'ok' });
        return;
      }
      let message = `HTTP ${status}`;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: { message?: unknown } };
        if (typeof body.error?.message === 'string') message = body.error.message;
      } catch {
        // not the broker's JSON: the status says enough
      }
      finish(status === 403 ? { kind: 'refused', message } : { kind: 'failed', why: message });
    };
    socket.on('data', (data: Buffer) => {
      try {
        for (const event of parser.push(data)) {
          if (event.type === 'head') status = event.status;
          else if (event.type === 'data') {
            size += event.chunk.length;
            if (size > 65_536) return finish({ kind: 'failed', why: 'the health answer is too large' });
            chunks.push(event.chunk);
          } else return done();
        }
      } catch {
        finish({ kind: 'failed', why: 'the answer is not HTTP' });
      }
    });
    socket.on('end', () => {
      try {
        for (const event of parser.finish()) if (event.type === 'end') return done();
      } catch {
        // fall through
      }
      finish({ kind: 'failed', why: 'the connection ended before an answer' });
    });
    socket.on('error', () => finish({ kind: 'failed', why: 'the connection failed' }));
    socket.write(`GET ${BROKER_HEALTH_PATH} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`);
  });
}

/** The line a health answer that is not `ok` becomes. */
export function healthProblem(
  host: string,
  listener: BrokerListenerRef,
  answer: HealthAnswer,
): string | undefined {
  if (answer.kind === 'ok') return undefined;
  if (answer.kind === 'refused')
    return `the credential broker refused you: ${answer.message.replace(/^qwen-managed broker: /, '')}`;
  return `the credential broker on ${where(host, listener)} does not answer its health request (${answer.why}); ${ASK}`;
}
