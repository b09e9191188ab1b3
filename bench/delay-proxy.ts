import { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { TcpProxy } from './tcp-proxy';

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
  /** Chunks from the server: more than one an exchange when an answer crosses in pieces. */
  answer_chunks: number;
  /** The server's own time, median of the exchanges: from a request's last chunk passed on to its answer's first. */
  server_p50_ms: number;
  /** How long the proxy held a chunk. */
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
}

const MAX_SAMPLES = 200_000;

/** Milliseconds, kept up to MAX_SAMPLES for their percentiles. */
class Samples {
  private readonly kept: number[] = [];
  count = 0;
  private sum = 0;

  add(ms: number): void {
    this.count++;
    this.sum += ms;
    if (this.kept.length < MAX_SAMPLES) this.kept.push(ms);
  }

  mean(): number {
    return this.count ? this.sum / this.count : 0;
  }

  percentiles(...ps: number[]): number[] {
    const sorted = [...this.kept].sort((a, b) => a - b);
    return ps.map((p) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0,
    );
  }
}

class Held {
  private readonly held = new Samples();
  /** An answer's first chunk, from its request's last passed on. */
  readonly served = new Samples();
  exchanges = 0;
  answerChunks = 0;

  add(ms: number): void {
    this.held.add(ms);
  }

  stats(): HeldStats {
    const round = (ms: number) => Number(ms.toFixed(3));
    const [p50, p99] = this.held.percentiles(0.5, 0.99);
    return {
      chunks: this.held.count,
      exchanges: this.exchanges,
      answer_chunks: this.answerChunks,
      server_p50_ms: round(this.served.percentiles(0.5)[0]),
      mean_ms: round(this.held.mean()),
      p50_ms: round(p50),
      p99_ms: round(p99),
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
    /** Told when a chunk has been passed on. */
    private readonly passed: (at: number) => void = () => undefined,
  ) {}

  push(chunk: Buffer): void {
    const at = now();
    const delay = this.delayMs();
    if (delay <= 0 && this.head === this.queue.length) {
      this.held().add(0);
      this.to.write(chunk);
      this.passed(at);
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
      this.passed(at);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      if (this.ending) this.to.end();
    }
  }
}

/** A TcpProxy whose connections hold every chunk `delayMs` each way, tallying what they held. */
export class DelayProxy {
  private readonly proxy: TcpProxy;
  delayMs = 0;
  held = new Held();

  constructor(readonly route: ProxyRoute) {
    this.proxy = new TcpProxy(route.targetPort, route.targetHost, (client, upstream) =>
      this.link(client, upstream),
    );
  }

  async listen(): Promise<void> {
    await this.proxy.start(this.route.port);
  }

  setDelay(ms: number): void {
    this.delayMs = ms;
    this.held = new Held();
  }

  private link(client: Socket, upstream: Socket): void {
    const delay = () => this.delayMs;
    const held = () => this.held;
    let answered = true;
    let requestPassed = 0;
    const up = new DelayedPipe(upstream, delay, held, (at) => (requestPassed = at));
    const down = new DelayedPipe(client, delay, held);
    client
      .on('data', (chunk: Buffer) => {
        if (answered) this.held.exchanges++;
        answered = false;
        up.push(chunk);
      })
      .on('end', () => up.end());
    upstream
      .on('data', (chunk: Buffer) => {
        this.held.answerChunks++;
        if (!answered) this.held.served.add(now() - requestPassed);
        answered = true;
        down.push(chunk);
      })
      .on('end', () => down.end());
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
