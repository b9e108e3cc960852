// The TCP-handle wire against real loopback servers on 127.0.0.1 and ::1: bytes in and out, one
// end or error, back-pressure, and silence after destroy(). Only IP literals may reach it.
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type LibuvStreams, processLibuvStreams } from '../../../src/bindings/libuv-stream.js';
import type { Dial, Wire } from '../../../src/http/wire.js';
import { ipLiteral, tcpDial } from '../../../src/http/wire-tcp.js';
import { type Loopback, listenOnLoopback } from '../../fixtures/loopback.js';

describe('ipLiteral', () => {
  it.each<[string, ReturnType<typeof ipLiteral>]>([
    ['127.0.0.1', { address: '127.0.0.1', family: 4 }],
    ['10.0.0.255', { address: '10.0.0.255', family: 4 }],
    ['0.0.0.0', { address: '0.0.0.0', family: 4 }],
    ['[::1]', { address: '::1', family: 6 }],
    ['[fe80::1]', { address: 'fe80::1', family: 6 }],
    ['[::ffff:7f00:1]', { address: '::ffff:7f00:1', family: 6 }],
    // Unbracketed IPv6 is never a URL hostname.
    ['::1', undefined],
    ['localhost', undefined],
    ['example.com', undefined],
    ['127.0.0.1.nip.io', undefined],
    ['1.2.3', undefined],
    ['1.2.3.4.5', undefined],
    ['1234.0.0.1', undefined],
    ['', undefined],
  ])('%j → %j', (hostname, expected) => {
    expect(ipLiteral(hostname)).toEqual(expected);
  });

  // What reaches ipLiteral is URL's hostname, which canonicalises every IPv4 spelling and IPv6 form.
  it.each<[string, ReturnType<typeof ipLiteral>]>([
    ['http://127.0.0.1:8080/x', { address: '127.0.0.1', family: 4 }],
    ['http://2130706433/', { address: '127.0.0.1', family: 4 }],
    ['http://0x7f.1/', { address: '127.0.0.1', family: 4 }],
    ['http://127.1/', { address: '127.0.0.1', family: 4 }],
    ['http://0177.0.0.1/', { address: '127.0.0.1', family: 4 }],
    ['http://1.2.3/', { address: '1.2.0.3', family: 4 }],
    ['http://[0:0:0:0:0:0:0:1]/', { address: '::1', family: 6 }],
    ['http://[::ffff:127.0.0.1]/', { address: '::ffff:7f00:1', family: 6 }],
    ['http://[FE80::1]/', { address: 'fe80::1', family: 6 }],
    ['http://LOCALHOST/', undefined],
    ['http://example.com./', undefined],
    ['http://127.0.0.1.nip.io/', undefined],
  ])('new URL(%j).hostname → %j', (url, expected) => {
    expect(ipLiteral(new URL(url).hostname)).toEqual(expected);
  });

  it.each(['http://256.0.0.1/', 'http://1.2.3.4.5/', 'http://[fe80::1%25eth0]/'])(
    'never sees %j: URL refuses it',
    (url) => {
      expect(() => new URL(url)).toThrow();
    },
  );
});

type Event = ['data', string] | ['end'] | ['error', string];

/** Dials and records every sink call; consecutive data chunks are joined into one event. */
function record(dial: Dial) {
  const events: Event[] = [];
  const bytes: Buffer[] = [];
  const waiters = new Set<() => void>();
  const push = (event: Event) => {
    const last = events.at(-1);
    if (event[0] === 'data' && last?.[0] === 'data') last[1] += event[1];
    else events.push(event);
    for (const waiter of waiters) waiter();
  };
  const wire: Wire = dial({
    data: (chunk) => {
      bytes.push(Buffer.from(chunk));
      push(['data', Buffer.from(chunk).toString('latin1')]);
    },
    end: () => push(['end']),
    error: (error) => push(['error', error.message]),
  });
  /** Resolves once `done()` holds after some event; fails the test if it never does. */
  const when = (done: () => boolean, ms = 5_000) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`still waiting; events so far: ${JSON.stringify(events).slice(0, 200)}`));
      }, ms);
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
    });
  const received = () => Buffer.concat(bytes).length;
  const settled = () => when(() => events.some(([kind]) => kind !== 'data'));
  return { events, wire, when, received, settled };
}

const streams = processLibuvStreams() as LibuvStreams;
const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(host: '127.0.0.1' | '::1', onConnection: (socket: net.Socket) => void) {
  const server = await listenOnLoopback(net.createServer(onConnection), host);
  servers.push(server);
  return server;
}
/** A port on `host` where nothing listens: the listener that had it is closed. */
async function refusedPort(host: '127.0.0.1' | '::1'): Promise<number> {
  const server = await listenOnLoopback(net.createServer(), host);
  await server.close();
  return server.port;
}
/** Everything a server connection receives, once the client's bytes reach `length`. */
function collect(socket: net.Socket, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= length) resolve(Buffer.concat(chunks));
    });
  });
}

it('has the bindings on this Node, so nothing below is skipped', () => {
  expect(streams).toBeDefined();
});

describe.each([
  ['127.0.0.1', 4],
  ['::1', 6],
] as const)('tcpDial to %s', (host, family) => {
  const dial = (port: number) => tcpDial(streams, host, family, port);

  it('delivers the bytes, then one end, when the server writes and ends', async () => {
    const server = await serve(host, (socket) => socket.end('hello, wire'));
    const { events, settled } = record(dial(server.port));
    await settled();
    // Any stray event after the end would show up here.
    await sleep(50);
    expect(events).toEqual([['data', 'hello, wire'], ['end']]);
  });

  it('sends text written before the connection is up once it is, as UTF-8, in order', async () => {
    const text = ['POST / HTTP/1.1\r\n', 'x-note: ü ✓ 😀\r\n', '\r\n'];
    const expected = Buffer.from(text.join(''));
    let got: Promise<Buffer> | undefined;
    const server = await serve(host, (socket) => {
      got = collect(socket, expected.length);
      void got.then(() => socket.end('ok'));
    });
    const { events, wire, settled } = record(dial(server.port));
    for (const part of text) wire.write(part);
    await settled();
    expect({ events, received: (await got)?.equals(expected) }).toEqual({
      events: [['data', 'ok'], ['end']],
      received: true,
    });
  });

  it('delivers an 8 MiB write complete to a server that reads slowly', async () => {
    const line = 'abcdefghijklmnopqrstuvwxyz ü ✓ 😀\n';
    const big = line.repeat(Math.ceil((8 * 1024 * 1024) / Buffer.byteLength(line)));
    const expected = Buffer.from(big);
    let got: Promise<Buffer> | undefined;
    const server = await serve(host, (socket) => {
      // Not reading at first fills the kernel buffers, so the write must be queued and completed later.
      socket.pause();
      setTimeout(() => socket.resume(), 300);
      got = collect(socket, expected.length);
      void got.then(() => socket.end('done'));
      socket.write('ready');
    });
    const { events, wire, when, settled } = record(dial(server.port));
    await when(() => events.length > 0);
    wire.write(big);
    await settled();
    const received = await got;
    expect({ events, length: received?.length, same: received?.equals(expected) }).toEqual({
      events: [['data', 'readydone'], ['end']],
      length: expected.length,
      same: true,
    });
  });

  it('reports a refused connection once, without naming the address or port', async () => {
    const port = await refusedPort(host);
    const { events, settled } = record(dial(port));
    await settled();
    await sleep(50);
    expect(events).toEqual([['error', 'connect failed']]);
    expect(JSON.stringify(events)).not.toContain(String(port));
    expect(JSON.stringify(events)).not.toContain(host);
  });

  it('reports a reset by the server as an error, after the bytes that came before it', async () => {
    const server = await serve(host, (socket) => {
      socket.write('hi');
      // Reset only once the client has its greeting: the reset then hits a read, not the connect.
      socket.once('data', () => socket.resetAndDestroy());
    });
    const { events, wire, when, settled } = record(dial(server.port));
    await when(() => events.length > 0);
    wire.write('reset me');
    await settled();
    await sleep(50);
    expect(events).toEqual([
      ['data', 'hi'],
      ['error', 'connection failed'],
    ]);
  });

  it('stops delivering data on pause() while the server keeps writing, and restarts on resume()', async () => {
    const server = await serve(host, (socket) => {
      const timer = setInterval(() => socket.write('tick'), 5);
      socket.on('close', () => clearInterval(timer));
      socket.on('error', () => {});
    });
    const { events, wire, when, received } = record(dial(server.port));
    await when(() => received() > 0);
    wire.pause();
    const atPause = received();
    await sleep(300);
    const afterQuiet = received();
    wire.resume();
    await when(() => received() > afterQuiet);
    wire.destroy();
    expect({
      quiet: afterQuiet === atPause,
      resumed: received() > afterQuiet,
      kinds: events.map(([k]) => k),
    }).toEqual({ quiet: true, resumed: true, kinds: ['data'] });
  });

  it('reads nothing while paused before the connection is up, and everything after resume()', async () => {
    const server = await serve(host, (socket) => socket.end('early bytes'));
    const { events, wire, settled } = record(dial(server.port));
    wire.pause();
    // Pausing twice and resuming once must still read: pause is a state, not a counter.
    wire.pause();
    await sleep(200);
    const whilePaused = [...events];
    wire.resume();
    await settled();
    expect({ whilePaused, events }).toEqual({ whilePaused: [], events: [['data', 'early bytes'], ['end']] });
  });

  it('delivers nothing after destroy(), which is safe to repeat and makes later writes no-ops', async () => {
    let serverClosed: Promise<void> | undefined;
    const server = await serve(host, (socket) => {
      serverClosed = new Promise((resolve) => socket.on('close', () => resolve()));
      const timer = setInterval(() => socket.write('tick'), 5);
      socket.on('close', () => clearInterval(timer));
      socket.on('error', () => {});
    });
    const { events, wire, when } = record(dial(server.port));
    await when(() => events.length > 0);
    wire.destroy();
    const atDestroy = JSON.stringify(events);
    wire.destroy();
    wire.write('too late');
    wire.pause();
    wire.resume();
    await sleep(200);
    // The server sees the connection go, and the sink saw nothing after destroy().
    await serverClosed;
    expect({ after: JSON.stringify(events), kinds: events.map(([k]) => k) }).toEqual({
      after: atDestroy,
      kinds: ['data'],
    });
  });

  it('delivers nothing when destroyed before the connection is up', async () => {
    const server = await serve(host, (socket) => socket.end('unseen'));
    const { events, wire } = record(dial(server.port));
    wire.write('never sent');
    wire.destroy();
    await sleep(200);
    expect(events).toEqual([]);
  });

  it('delivers no refusal when destroyed before the refusal arrives', async () => {
    const { events, wire } = record(dial(await refusedPort(host)));
    wire.destroy();
    await sleep(200);
    expect(events).toEqual([]);
  });
});

describe('tcpDial with an address libuv refuses at once', () => {
  it('reports the failure asynchronously: the caller has its wire first', async () => {
    const { events, settled } = record(tcpDial(streams, '1.2.3', 4, 80));
    const synchronously = [...events];
    await settled();
    expect({ synchronously, events }).toEqual({ synchronously: [], events: [['error', 'connect failed']] });
  });

  it('reports nothing if the wire is destroyed before that', async () => {
    const { events, wire } = record(tcpDial(streams, 'not an address', 6, 80));
    wire.destroy();
    await sleep(50);
    expect(events).toEqual([]);
  });
});
