// A Wire over Node's TCP handle (src/bindings/libuv-stream.ts) for plain-http origins given as an
// IP literal: no node:net, no stream machinery, no DNS. Host names and https never come here.
import { type LibuvStreams, routeReads } from '../bindings/libuv-stream.js';
import type { Dial } from './wire.js';

/** An IP literal as WHATWG URL leaves it in `hostname` (IPv4 canonical, IPv6 bracketed), or undefined. */
export function ipLiteral(hostname: string): { address: string; family: 4 | 6 } | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']'))
    return { address: hostname.slice(1, -1), family: 6 };
  // The URL parser turns every host that ends in a number into canonical dotted-quad or refuses it.
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname)) return { address: hostname, family: 4 };
  return undefined;
}

export function tcpDial(streams: LibuvStreams, address: string, family: 4 | 6, port: number): Dial {
  return (sink) => {
    const handle = streams.tcp();
    let connected = false;
    let paused = false;
    let done = false;
    const pending: string[] = [];
    // Node's own net.Socket keeps its requests reachable until they complete; so does this wire,
    // for its whole (one-request) life.
    const requests: object[] = [];

    const destroy = () => {
      if (done) return;
      done = true;
      // Node asserts that onread is always a function: a stray read after close lands here.
      handle.onread = () => {};
      handle.close();
    };
    // Fixed messages: a failure never names the host.
    const fail = (message: string) => {
      if (done) return;
      destroy();
      sink.error(new Error(message));
    };
    const write = (text: string) => {
      const request = streams.writeRequest(handle);
      requests.push(request);
      request.oncomplete = (status) => {
        if (status < 0) fail('write failed');
      };
      // 0: written or queued; negative: a libuv error.
      if (handle.writeUtf8String(request, text) < 0) fail('write failed');
    };

    routeReads(streams, handle, {
      data: (chunk) => {
        if (!done) sink.data(chunk);
      },
      end: () => {
        if (done) return;
        destroy();
        sink.end();
      },
      error: () => fail('connection failed'),
    });

    const connect = streams.connectRequest();
    requests.push(connect);
    connect.oncomplete = (status) => {
      if (done) return;
      if (status < 0) return fail('connect failed');
      connected = true;
      handle.setNoDelay(true);
      if (!paused && handle.readStart() < 0) return fail('connection failed');
      for (const text of pending.splice(0)) write(text);
    };
    const status =
      family === 6 ? handle.connect6(connect, address, port) : handle.connect(connect, address, port);
    // Reported asynchronously, like every other outcome: the caller has its wire before any event.
    if (status < 0) queueMicrotask(() => fail('connect failed'));

    return {
      write: (text) => {
        if (done) return;
        if (connected) write(text);
        else pending.push(text);
      },
      pause: () => {
        if (done || paused) return;
        paused = true;
        if (connected) handle.readStop();
      },
      resume: () => {
        if (done || !paused) return;
        paused = false;
        if (connected && handle.readStart() < 0) fail('connection failed');
      },
      destroy,
    };
  };
}
