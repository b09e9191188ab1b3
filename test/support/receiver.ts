import { IncomingHttpHeaders, Server, createServer } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
  /** Answer only once this settles: the test holds the request open until it releases it. */
  until?: Promise<unknown>;
}

/** A local webhook receiver: records every request and answers with `respond` (200 by default). */
export class Receiver {
  readonly requests: Received[] = [];
  respond: (request: Received, index: number) => Reply = () => ({ status: 200, body: 'ok' });
  /** Requests being answered right now, by path, and the most there ever were at once. */
  readonly open = new Map<string, number>();
  readonly maxOpen = new Map<string, number>();
  private server?: Server;
  url = '';

  /** Listens on `port` (default: a free one); start again on the old port to bring a stopped receiver back. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(received);
        const path = received.path;
        const open = (this.open.get(path) ?? 0) + 1;
        this.open.set(path, open);
        this.maxOpen.set(path, Math.max(open, this.maxOpen.get(path) ?? 0));
        // Closed by us answering, or by the sender giving up (timeout, crash).
        res.once('close', () => this.open.set(path, (this.open.get(path) ?? 1) - 1));
        const reply = this.respond(received, this.requests.length - 1);
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, reply.headers ?? {});
          res.end(reply.body ?? '');
        };
        const answer = () => (reply.delayMs ? setTimeout(send, reply.delayMs) : send());
        if (reply.until) void reply.until.then(answer);
        else answer();
      });
    });
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** Bodies of the requests received on `path`, parsed. */
  events(path = '/hook'): any[] {
    return this.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
