import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, bullConnection, createNodeRedis } from '@wharf/core';
import { LeaseRedis, withLeaseCommands } from './send-lease.scripts';
import { LEASE_MAX_POLL_MS, LEASE_MIN_POLL_MS, LEASE_RENEW_EVERY_MS, LEASE_TTL_MS } from '../../tuning';

interface Waiter {
  want: number;
  /** Leases given to it by this worker's sends as they ended. */
  handed: number;
  wake: () => void;
}

/**
 * The one bound on an endpoint's sends at once (`max_in_flight`, 1 while throttled), across all worker
 * processes: a send takes one of the endpoint's leases and gives it back when it is answered, before its
 * attempt is recorded. The queue may hold more of an endpoint's deliveries than that (its window, see
 * store/admission.sql.ts), so the next ones are already fetched when a send ends; they wait here, in place,
 * for a lease. Leases are renewed while held and expire when their worker dies.
 *
 * Within a process, a lease given back goes straight to the longest waiter of its endpoint; a waiter in
 * another process finds a lease given back to Redis on its next poll (every few milliseconds at first,
 * backing off to LEASE_MAX_POLL_MS).
 */
@Injectable()
export class EndpointSendLeases implements OnApplicationShutdown {
  private redis?: LeaseRedis;
  private readonly prefix = randomUUID();
  private sequence = 0;
  /** Lease names this process holds, by endpoint. */
  private readonly held = new Map<string, string[]>();
  private readonly waiters = new Map<string, Waiter[]>();
  private released = new Map<string, string[]>();
  private flushing = false;
  private renewal?: NodeJS.Timeout;
  private aborted = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private client(): LeaseRedis {
    if (!this.redis) {
      this.redis = withLeaseCommands(createNodeRedis(bullConnection(this.config.redisUrl), 'send-leases'));
      this.renewal = setInterval(() => void this.renew(), LEASE_RENEW_EVERY_MS);
      this.renewal.unref();
    }
    return this.redis;
  }

  private key(endpoint: string): string {
    return `${this.config.queuePrefix}:webhook-sending:${endpoint}`;
  }

  /**
   * Takes between 1 and `want` of the endpoint's `cap` leases, waiting while every one is held. A new taker
   * queues behind this worker's waiters of the endpoint rather than pass them; a waiter keeps its place
   * while it asks Redis for a lease another worker gave back.
   */
  async take(endpoint: string, cap: number, want: number): Promise<number> {
    if (this.aborted) throw new Error('send leases abandoned on shutdown');
    if (!this.waiters.get(endpoint)?.length && !this.holdsAll(endpoint, cap)) {
      const granted = await this.acquire(endpoint, cap, want);
      if (granted > 0) return granted;
    }
    const waiting = this.waiters.get(endpoint) ?? [];
    this.waiters.set(endpoint, waiting);
    const waiter: Waiter = { want, handed: 0, wake: () => undefined };
    waiting.push(waiter);
    const leave = () => {
      const at = waiting.indexOf(waiter);
      if (at >= 0) waiting.splice(at, 1);
      if (!waiting.length && this.waiters.get(endpoint) === waiting) this.waiters.delete(endpoint);
    };
    try {
      for (let pollMs = LEASE_MIN_POLL_MS; ; pollMs = Math.min(pollMs * 2, LEASE_MAX_POLL_MS)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          waiter.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiter.wake = () => undefined;
        if (this.aborted) throw new Error('send leases abandoned on shutdown');
        if (waiter.handed > 0) return waiter.handed;
        if (this.holdsAll(endpoint, cap)) continue;
        const granted = await this.acquire(endpoint, cap, want);
        if (granted + waiter.handed > 0) {
          leave();
          // Handed leases while Redis granted some: those beyond `want` go on to the next waiter.
          for (let extra = granted + waiter.handed - want; extra > 0; extra--) this.release(endpoint);
          return Math.min(want, granted + waiter.handed);
        }
      }
    } finally {
      leave();
    }
  }

  /**
   * This worker holds every lease of the endpoint, so Redis has none to grant until one of its own sends
   * gives one back (handed over here, no round trip) or the renewal finds one lapsed: asking is wasted.
   */
  private holdsAll(endpoint: string, cap: number): boolean {
    return (this.held.get(endpoint)?.length ?? 0) >= cap;
  }

  private async acquire(endpoint: string, cap: number, want: number): Promise<number> {
    const base = `${this.prefix}.${++this.sequence}`;
    const granted = await this.client().acquireLeases(this.key(endpoint), cap, want, LEASE_TTL_MS, base);
    if (granted > 0) {
      const held = this.held.get(endpoint) ?? [];
      for (let i = 1; i <= granted; i++) held.push(`${base}.${i}`);
      this.held.set(endpoint, held);
    }
    return granted;
  }

  /**
   * Gives back one lease of the endpoint (its send was answered): to this worker's longest waiter of the
   * endpoint if there is one (no round trip: the lease stays this worker's, renewed with the rest), else
   * to Redis.
   */
  release(endpoint: string): void {
    const held = this.held.get(endpoint);
    // None held: the lease of this send lapsed and was dropped by the renewal, so there is nothing to pass on.
    if (!held?.length) return;
    const waiting = this.waiters.get(endpoint);
    if (waiting?.length) {
      const waiter = waiting[0];
      if (++waiter.handed === waiter.want) waiting.shift();
      // Answers arriving in the same turn of the event loop are handed over together.
      if (waiter.handed === 1) setImmediate(() => waiter.wake());
      return;
    }
    const lease = held.pop()!;
    const batch = this.released.get(endpoint);
    if (batch) batch.push(lease);
    else this.released.set(endpoint, [lease]);
    if (!this.flushing) {
      this.flushing = true;
      // Answers arriving in the same turn of the event loop give their leases back in one command.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    const released = this.released;
    this.released = new Map();
    for (const [endpoint, leases] of released) {
      // Not awaited: a release lost to a Redis outage expires with the lease.
      this.client()
        .zrem(this.key(endpoint), ...leases)
        .catch(() => undefined);
    }
  }

  /** Renews every lease held and forgets those that lapsed (resolves when done; errors are left to expiry). */
  private async renew(): Promise<void> {
    const renewals: Promise<void>[] = [];
    for (const [endpoint, leases] of this.held) {
      if (!leases.length) {
        this.held.delete(endpoint);
        continue;
      }
      renewals.push(
        this.redis!.renewLeases(this.key(endpoint), LEASE_TTL_MS, ...leases).then(
          (gone) => {
            const still = this.held.get(endpoint);
            for (const lease of gone) {
              const at = still?.indexOf(lease) ?? -1;
              if (at >= 0) still!.splice(at, 1);
            }
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(renewals);
  }

  /** Wakes every waiter to fail: the worker is handing its jobs back to the queue. */
  abort(): void {
    this.aborted = true;
    // A lease already handed to a waiter stays held until shutdown gives it back.
    for (const waiting of this.waiters.values()) for (const waiter of [...waiting]) waiter.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.renewal);
    this.aborted = true;
    if (!this.redis) return;
    for (const [endpoint, leases] of this.held)
      if (leases.length) await this.redis.zrem(this.key(endpoint), ...leases).catch(() => undefined);
    await this.redis.quit().catch(() => undefined);
  }
}
