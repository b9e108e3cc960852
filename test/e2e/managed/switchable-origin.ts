// A loopback TCP front for a fake provider, so one rendered provider URL can be healthy, down or
// hanging within one test file: `up` pipes every connection to the fake service, `down` closes the
// listening socket (connections are refused, as with a stopped service) and `hang` accepts
// connections and never answers. The port stays the same, so the rendered config stays valid.
import { once } from 'node:events';
import net from 'node:net';
import { listenOnLoopback } from '../../../scripts/shared/loopback.js';

export type OriginMode = 'up' | 'down' | 'hang';

export class SwitchableOrigin {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private current: OriginMode = 'up';

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port) in front of `targetUrl` (`http://127.0.0.1:<port>`). */
  static async start(targetUrl: string): Promise<SwitchableOrigin> {
    const url = new URL(targetUrl);
    const probe = await listenOnLoopback(net.createServer());
    await probe.close();
    const origin = new SwitchableOrigin({ host: url.hostname, port: Number(url.port) }, probe.port);
    await origin.listen();
    return origin;
  }

  /** `http://127.0.0.1:<port>`: what the deployment's provider block names. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get mode(): OriginMode {
    return this.current;
  }

  async set(mode: OriginMode): Promise<void> {
    if (mode === this.current) return;
    this.dropConnections();
    if (mode === 'down') await this.unlisten();
    else if (this.server === undefined) await this.listen();
    this.current = mode;
  }

  async close(): Promise<void> {
    this.dropConnections();
    await this.unlisten();
  }

  private async listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
  }

  private async unlisten(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  private accept(client: net.Socket): void {
    this.track(client);
    // Hanging: read and discard what the client sends, answer nothing, keep the connection open.
    if (this.current === 'hang') {
      client.resume();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    this.track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }
}
