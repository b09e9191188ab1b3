import { randomUUID } from 'node:crypto';
import { AppConfig } from '@wharf/core';
import { Redis } from 'ioredis';
import { EndpointSendLeases } from '@wharf/webhooks/worker';
import { eventually } from './support/http';
import { REDIS_URL } from './support/test-app';

/** Against the real Redis: each instance stands for a worker process, with its own connection. */
describe('webhooks: send leases (max_in_flight across workers)', () => {
  const queuePrefix = `wharf-test-leases-${randomUUID()}`;
  const config = { redisUrl: REDIS_URL, queuePrefix } as AppConfig;
  const redis = new Redis(REDIS_URL);
  const workers: EndpointSendLeases[] = [];
  const worker = () => {
    const leases = new EndpointSendLeases(config);
    workers.push(leases);
    return leases;
  };
  const key = (endpoint: string) => `${queuePrefix}:webhook-sending:${endpoint}`;

  afterAll(async () => {
    await Promise.all(workers.map((leases) => leases.onApplicationShutdown()));
    const keys = await redis.keys(`${queuePrefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('grants at most the cap over all workers; another worker gets a lease once one is given back', async () => {
    const [a, b] = [worker(), worker()];
    expect(await a.take('ep1', 3, 5)).toBe(3);
    let released = false;
    const waiting = b.take('ep1', 3, 2).then((granted) => ({ granted, released }));
    // Still waiting on the decisive state: all three leases are held in Redis, none by b.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await redis.zcard(key('ep1'))).toBe(3);
    released = true;
    a.release('ep1');
    expect(await waiting).toEqual({ granted: 1, released: true });
    expect(await redis.zcard(key('ep1'))).toBe(3);
  });

  it('hands a lease given back to the longest waiter of the same worker first', async () => {
    const a = worker();
    expect(await a.take('ep2', 1, 1)).toBe(1);
    const order: string[] = [];
    const second = a.take('ep2', 1, 1).then(() => order.push('second'));
    const third = a.take('ep2', 1, 1).then(() => order.push('third'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    a.release('ep2');
    await second;
    a.release('ep2');
    await third;
    expect(order).toEqual(['second', 'third']);
  });

  it('does not ask Redis for a lease while its own worker holds every one of them', async () => {
    const a = worker();
    expect(await a.take('ep6', 2, 2)).toBe(2);
    const leases = a as unknown as { acquire: () => Promise<number>; holdsAll: () => boolean };
    const asked = jest.spyOn(leases, 'acquire');
    const decided = jest.spyOn(leases, 'holdsAll');
    const waiting = a.take('ep6', 2, 1);
    // The waiter has woken and decided whether to ask Redis three times (on taking, then at each poll).
    await eventually(async () => decided.mock.calls.length >= 3, 5_000, 5);
    a.release('ep6');
    expect(await waiting).toBe(1);
    expect(asked).not.toHaveBeenCalled();
    // With a lease given back to Redis, the next taker asks it again.
    a.release('ep6');
    a.release('ep6');
    // Both go back in one command, so Redis grants both (after one empty poll if the take beat it there).
    expect(await a.take('ep6', 2, 2)).toBe(2);
    expect(asked).toHaveBeenCalled();
  });

  it('frees the leases of a worker that died (not renewed past their expiry), not those of a live one', async () => {
    const now = Number((await redis.time())[0]) * 1000;
    await redis.zadd(key('ep3'), now - 1, 'dead.1', now + 60_000, 'alive.1');
    const a = worker();
    expect(await a.take('ep3', 2, 2)).toBe(1);
    expect((await redis.zrange(key('ep3'), 0, -1)).filter((lease) => lease.startsWith('alive'))).toEqual([
      'alive.1',
    ]);
  });

  it('forgets a lease that lapsed (Redis wiped) instead of handing it to its own waiter', async () => {
    const [a, b] = [worker(), worker()];
    expect(await a.take('ep5', 1, 1)).toBe(1);
    await redis.del(key('ep5'));
    // The lapsed lease is free for another worker, so it is b's now; a's next send waits for it.
    expect(await b.take('ep5', 1, 1)).toBe(1);
    let bReleased = false;
    const waiting = a.take('ep5', 1, 1).then(() => bReleased);
    await a['renew']();
    // a's send ends: with its lease gone it has nothing to hand over, and its waiter still waits...
    a.release('ep5');
    expect(await redis.zcard(key('ep5'))).toBe(1);
    // ...until b gives the one lease back.
    bReleased = true;
    b.release('ep5');
    expect(await waiting).toBe(true);
  });

  it('fails the waiters when the worker hands its jobs back on shutdown', async () => {
    const [a, b] = [worker(), worker()];
    expect(await a.take('ep4', 1, 1)).toBe(1);
    const waiting = b.take('ep4', 1, 1);
    b.abort();
    await expect(waiting).rejects.toThrow(/abandoned on shutdown/);
  });
});
