import { BrokerConnection } from './destination-type';

interface Entry {
  opening: Promise<BrokerConnection>;
  connection?: BrokerConnection;
  /** Sends using it right now: it is closed only once they are answered. */
  inUse: number;
  lastUsed: number;
  /** Out of the pool (evicted, idle, broken or shut down): closed when its last send is answered. */
  dropped: boolean;
}

/**
 * Broker connections by key (type, target and credentials), shared by every send to that key: at most
 * `max` of them, the least recently used closed first, an idle one closed after `idleMs`. A broken one is
 * replaced by the next send that needs it; nothing reconnects on a timer.
 */
export class ConnectionPool {
  /** In order of use, least recent first (a Map iterates in insertion order). */
  private readonly entries = new Map<string, Entry>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Runs `work` on the key's connection, opening one (with `open`) when there is none or it broke. */
  async use<T>(
    key: string,
    open: () => Promise<BrokerConnection>,
    work: (connection: BrokerConnection) => Promise<T>,
  ): Promise<T> {
    const entry = this.acquire(key, open);
    entry.inUse++;
    try {
      return await work(await entry.opening);
    } finally {
      entry.inUse--;
      entry.lastUsed = Date.now();
      if (entry.dropped && entry.inUse === 0) void this.close(entry);
    }
  }

  private acquire(key: string, open: () => Promise<BrokerConnection>): Entry {
    const found = this.entries.get(key);
    if (found && !found.connection?.broken) {
      this.entries.delete(key);
      this.entries.set(key, found);
      return found;
    }
    if (found) this.drop(key, found);
    const entry: Entry = { opening: open(), inUse: 0, lastUsed: Date.now(), dropped: false };
    entry.opening.then(
      (connection) => (entry.connection = connection),
      // A connection that could not be opened is forgotten: the next send tries again.
      () => this.entries.get(key) === entry && this.entries.delete(key),
    );
    this.entries.set(key, entry);
    for (const [oldest, least] of this.entries) {
      if (this.entries.size <= this.max) break;
      this.drop(oldest, least);
    }
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(1, this.idleMs / 2)).unref();
    return entry;
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    entry.dropped = true;
    if (entry.inUse === 0) void this.close(entry);
  }

  private close(entry: Entry): Promise<void> {
    return entry.opening.then(
      (connection) => connection.close(),
      () => undefined,
    );
  }

  /** Closes the connections idle for longer than idleMs, and the broken ones nothing uses. */
  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries)
      if (entry.inUse === 0 && (now - entry.lastUsed > this.idleMs || entry.connection?.broken))
        this.drop(key, entry);
    if (!this.entries.size) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /**
   * Closes every connection: at once those idle, the others as their sends are answered (`now`: at once,
   * cutting sends in flight).
   */
  async closeAll(now = false): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    const entries = [...this.entries];
    this.entries.clear();
    await Promise.all(
      entries.map(([, entry]) => {
        entry.dropped = true;
        return entry.inUse === 0 || now ? this.close(entry) : Promise.resolve();
      }),
    );
  }
}
