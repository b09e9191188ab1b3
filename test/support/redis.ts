import { Redis } from 'ioredis';

/** Whether a Redis answers PING at `url` now (one try, no reconnects): for waiting on a server a test started. */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
}
