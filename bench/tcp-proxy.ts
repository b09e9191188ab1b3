import { AddressInfo, Server, Socket, createServer, connect } from 'node:net';

/**
 * A TCP proxy to a broker, for outage tests that must not stop the shared one: `cut()` resets every
 * connection through it and every new one until `restore()`.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private down = false;
  /** Connections accepted while down (each reset at once). */
  refused = 0;
  /** Connections passed through to the broker. */
  accepted = 0;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {}

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async start(): Promise<this> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
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
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket)).on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
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
