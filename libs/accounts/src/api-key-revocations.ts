import { Logger } from '@nestjs/common';
import { listenOn } from '@wharf/core';
import type { Client } from 'pg';
import { API_KEYS_CHANNEL } from './migrations/1700000000008-notify-api-key-changes';

/** How long after a failed LISTEN connection the next lookup tries again. */
const RETRY_MS = 1_000;
/** How long a revocation waits to hear its own notification before answering anyway. */
const HEARD_WITHIN_MS = 2_000;

/**
 * Keeps a process's cache of API keys true to the database, as the live console's ActivityHub keeps its
 * streams: ONE LISTEN connection hears every key revoked, deleted or changed (a trigger NOTIFYs at commit,
 * whichever process or command made the change) and `changed` drops the cache. The cache may be used only
 * while that connection listens; it opens at the first lookup, and again at a lookup after it was lost.
 */
export class ApiKeyRevocations {
  /**
   * Moves on at every change heard, every loss of the connection and every (re)connection: a lookup begun
   * under another value may have read a key revoked since, so its result must not be cached.
   */
  generation = 0;
  private listener?: Client;
  private connecting = false;
  private nextAttempt = 0;
  private closed = false;
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly caches = new Set<() => void>();
  private readonly logger = new Logger('api-keys');

  constructor(private readonly databaseUrl: string) {}

  /** `drop` empties a cache of keys: called at every change heard and whenever the connection is lost. */
  onChange(drop: () => void): void {
    this.caches.add(drop);
  }

  get isListening(): boolean {
    return this.listener !== undefined;
  }

  /** Whether cached keys may be used now; when they may not, starts listening (at most once a second). */
  trusted(): boolean {
    if (this.listener) return true;
    if (!this.connecting && !this.closed && Date.now() >= this.nextAttempt) void this.listen();
    return false;
  }

  /**
   * Call before changing key `uuid`: `heard` resolves once this process hears the change (by then every
   * listening process has been sent it), within 2 s, or at once when this process is not listening.
   */
  expect(uuid: string): { heard: Promise<void>; cancel: () => void } {
    if (!this.listener) return { heard: Promise.resolve(), cancel: () => undefined };
    let settle!: () => void;
    const heard = new Promise<void>((resolve) => {
      const timer = setTimeout(() => settle(), HEARD_WITHIN_MS);
      settle = () => {
        clearTimeout(timer);
        this.waiting.get(uuid)?.delete(settle);
        if (!this.waiting.get(uuid)?.size) this.waiting.delete(uuid);
        resolve();
      };
    });
    if (!this.waiting.has(uuid)) this.waiting.set(uuid, new Set());
    this.waiting.get(uuid)!.add(settle);
    return { heard, cancel: settle };
  }

  /** A change made or heard here: drops the cache, and what lookups in flight read is not cached. */
  invalidate(): void {
    this.generation++;
    for (const drop of this.caches) drop();
  }

  close(): void {
    this.closed = true;
    void this.listener?.end().catch(() => undefined);
    this.listener = undefined;
    for (const waiters of [...this.waiting.values()]) for (const settle of waiters) settle();
  }

  private heard(uuid: string): void {
    this.invalidate();
    for (const settle of this.waiting.get(uuid) ?? []) settle();
  }

  private async listen(): Promise<void> {
    this.connecting = true;
    try {
      const client = await listenOn(this.databaseUrl, API_KEYS_CHANNEL, {
        onNotify: (uuid) => this.heard(uuid),
        onLost: (error) => {
          if (this.listener !== client) return;
          // Changes from now on go unheard: no cached key is trusted until the connection listens again.
          this.listener = undefined;
          this.invalidate();
          if (error && !this.closed) this.logger.warn(`LISTEN ${API_KEYS_CHANNEL} lost (${error.message})`);
        },
      });
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      // What was read before this connection listened may have changed unheard.
      this.invalidate();
      this.listener = client;
    } catch {
      this.nextAttempt = Date.now() + RETRY_MS;
    } finally {
      this.connecting = false;
    }
  }
}
