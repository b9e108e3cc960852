// A net.Socket or tls.TLSSocket as a Wire: DNS and the address-family fallback stay Node's.
import type net from 'node:net';
import type { Dial } from './wire.js';

export function netDial(connect: () => net.Socket): Dial {
  return (sink) => {
    let done = false;
    // Exactly one of end/error reaches the sink, and none after destroy().
    const settle = (report: () => void) => {
      if (done) return;
      done = true;
      report();
    };
    const socket = connect();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (!done) sink.data(chunk);
    });
    socket.on('end', () => settle(() => sink.end()));
    // Node's own messages name the host and port: the sink gets a fixed one, with only the errno or
    // TLS code (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT), which probe turns into the reason.
    socket.on('error', (error: NodeJS.ErrnoException) =>
      settle(() => sink.error(Object.assign(new Error('connection failed'), { code: error.code }))),
    );
    socket.on('close', () => settle(() => sink.error(new Error('connection closed'))));
    return {
      write: (text) => {
        socket.write(text, 'utf8');
      },
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      destroy: () => {
        done = true;
        socket.destroy();
      },
    };
  };
}
