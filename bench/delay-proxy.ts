import { Server, Socket, connect, createServer } from 'node:net';
import { Worker } from 'node:worker_threads';

/**
 * TCP proxies that hold every chunk a set time in each direction before passing it on, in order: the
 * network latency between hosts, on a machine whose kernel has no netem. Node's timers fire at a
 * millisecond's granularity at best, so a thread keeps the time (Clock), and each proxy measures how long
 * it really held its chunks.
 * Run as a child process (`DELAY_PROXY_ROUTES`), driven over IPC: `{ delayMs }` sets the one-way delay of
 * every proxy, `{ stats: true }` answers what each held since the last delay was set.
 */

export interface ProxyRoute {
  name: string;
  port: number;
  targetHost: string;
  targetPort: number;
}

export interface HeldStats {
  chunks: number;
  /** Round trips begun: chunks from the client after an answer (or first on their connection). */
  exchanges: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
}

const MAX_SAMPLES = 200_000;

class Held {
  private samples: number[] = [];
  private count = 0;
  private sum = 0;
  exchanges = 0;

  add(ms: number): void {
    this.count++;
    this.sum += ms;
    if (this.samples.length < MAX_SAMPLES) this.samples.push(ms);
  }

  stats(): HeldStats {
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (p: number) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0;
    const round = (ms: number) => Number(ms.toFixed(3));
    return {
      chunks: this.count,
      exchanges: this.exchanges,
      mean_ms: round(this.count ? this.sum / this.count : 0),
      p50_ms: round(at(0.5)),
      p99_ms: round(at(0.99)),
    };
  }
}

const now = () => performance.timeOrigin + performance.now();

// The clock's thread: sleeps in Atomics.wait until the earliest due time (a futex, to the microsecond),
// posts once, and sleeps until the main thread has taken it and set the next.
const CLOCK_THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const control = new Int32Array(workerData.control);
const due = new Float64Array(workerData.due);
const now = () => performance.timeOrigin + performance.now();
let seq = Atomics.load(control, 0);
for (;;) {
  const at = due[0];
  const wait = at - now();
  if (at !== Infinity && wait <= 0) {
    parentPort.postMessage(0);
    Atomics.wait(control, 0, seq);
  } else Atomics.wait(control, 0, seq, at === Infinity ? Infinity : wait);
  seq = Atomics.load(control, 0);
}`;

/**
 * Wake-ups below Node's millisecond timers, without spinning: a thread sleeps until the earliest chunk is
 * due and wakes the event loop then.
 */
class Clock {
  private readonly control = new Int32Array(new SharedArrayBuffer(4));
  private readonly due = new Float64Array(new SharedArrayBuffer(8));
  private readonly waiting = new Set<DelayedPipe>();
  private thread?: Worker;

  constructor() {
    this.due[0] = Infinity;
  }

  /** `pipe` holds chunks: flush it once its first is due. */
  wake(pipe: DelayedPipe): void {
    this.thread ??= this.start();
    this.waiting.add(pipe);
    const due = pipe.nextDue();
    if (due !== undefined && due < this.due[0]) this.set(due);
  }

  private start(): Worker {
    const thread = new Worker(CLOCK_THREAD, {
      eval: true,
      workerData: { control: this.control.buffer, due: this.due.buffer },
    });
    thread.on('message', () => this.tick());
    thread.unref();
    return thread;
  }

  private tick(): void {
    const at = now();
    let next = Infinity;
    for (const pipe of this.waiting) {
      pipe.flush(at);
      const due = pipe.nextDue();
      if (due === undefined) this.waiting.delete(pipe);
      else next = Math.min(next, due);
    }
    this.set(next);
  }

  private set(due: number): void {
    this.due[0] = due;
    Atomics.add(this.control, 0, 1);
    Atomics.notify(this.control, 0);
  }
}

const clock = new Clock();

/** One direction of a connection: each chunk waits until its time has come, then goes out in arrival order. */
class DelayedPipe {
  private queue: { due: number; at: number; chunk: Buffer }[] = [];
  private head = 0;
  private ending = false;

  constructor(
    private readonly to: Socket,
    private readonly delayMs: () => number,
    /** The proxy's tally, replaced each time its delay is set. */
    private readonly held: () => Held,
  ) {}

  push(chunk: Buffer): void {
    const at = now();
    const delay = this.delayMs();
    if (delay <= 0 && this.head === this.queue.length) {
      this.held().add(0);
      this.to.write(chunk);
      return;
    }
    this.queue.push({ due: at + delay, at, chunk });
    clock.wake(this);
  }

  /** The source ended: the target ends once what is held has gone out. */
  end(): void {
    this.ending = true;
    if (this.head === this.queue.length) this.to.end();
  }

  nextDue(): number | undefined {
    return this.head < this.queue.length ? this.queue[this.head].due : undefined;
  }

  flush(at: number): void {
    while (this.head < this.queue.length && this.queue[this.head].due <= at) {
      const held = this.queue[this.head++];
      this.held().add(at - held.at);
      this.to.write(held.chunk);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.ending) this.to.end();
    }
  }
}

export class DelayProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  delayMs = 0;
  held = new Held();

  constructor(readonly route: ProxyRoute) {}

  async listen(): Promise<void> {
    this.server = createServer((client) => this.connection(client));
    await new Promise<void>((resolve) => this.server!.listen(this.route.port, '127.0.0.1', resolve));
  }

  setDelay(ms: number): void {
    this.delayMs = ms;
    this.held = new Held();
  }

  private connection(client: Socket): void {
    const upstream = connect(this.route.targetPort, this.route.targetHost);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      this.sockets.add(socket);
    }
    const delay = () => this.delayMs;
    const held = () => this.held;
    const up = new DelayedPipe(upstream, delay, held);
    const down = new DelayedPipe(client, delay, held);
    let answered = true;
    client
      .on('data', (chunk: Buffer) => {
        if (answered) this.held.exchanges++;
        answered = false;
        up.push(chunk);
      })
      .on('end', () => up.end());
    upstream
      .on('data', (chunk: Buffer) => {
        answered = true;
        down.push(chunk);
      })
      .on('end', () => down.end());
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  }

  close(): void {
    this.server?.close();
    for (const socket of this.sockets) socket.destroy();
  }
}

/** The proxies' process: DELAY_PROXY_ROUTES is a JSON list of ProxyRoute. */
async function serve(): Promise<void> {
  const proxies = (JSON.parse(process.env.DELAY_PROXY_ROUTES!) as ProxyRoute[]).map(
    (route) => new DelayProxy(route),
  );
  await Promise.all(proxies.map((proxy) => proxy.listen()));
  process.on('message', (message: { delayMs?: number; stats?: boolean }) => {
    if (message.delayMs !== undefined) {
      for (const proxy of proxies) proxy.setDelay(message.delayMs);
      process.send!({ delayMs: message.delayMs });
    } else if (message.stats) {
      process.send!({
        stats: Object.fromEntries(proxies.map((proxy) => [proxy.route.name, proxy.held.stats()])),
      });
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}

if (require.main === module && process.env.DELAY_PROXY_ROUTES) {
  serve().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
}
