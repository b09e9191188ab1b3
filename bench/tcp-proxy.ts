import { AddressInfo, Server, Socket, createServer, connect } from 'node:net';

/** How the bytes of one connection through the proxy flow between its client and the server. */
export type Link = (client: Socket, upstream: Socket) => void;

const bothWays: Link = (client, upstream) => void client.pipe(upstream).pipe(client);

/**
 * A TCP proxy to a server: for outage tests that must not stop a shared one, `cut()` resets every connection
 * through it and every new one until `restore()`; `link` changes what passes (delay-proxy.ts holds each
 * chunk, a test may keep the answers from the client).
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private down = false;
  /** Connections accepted while down (each reset at once). */
  refused = 0;
  /** Connections passed through to the server. */
  accepted = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
    private readonly link: Link = bothWays,
  ) {}

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  /** Listens on `port` (default: a free one). */
  async start(port = 0): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    return this;
  }

  private accept(client: Socket): void {
    if (this.down) {
      this.refused++;
      client.resetAndDestroy();
      return;
    }
    this.accepted++;
    const upstream = connect(this.targetPort, this.targetHost);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket)).on('error', () => undefined);
    }
    this.link(client, upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  /** Connections open through the proxy now (client sides). */
  get open(): number {
    return this.sockets.size / 2;
  }

  /** Resets every open connection and refuses new ones. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.resetAndDestroy();
  }

  restore(): void {
    this.down = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
