import { ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { eventually } from './http';
import { freePort } from './ports';

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

/**
 * A throwaway Redis on a free port (for tests that stop it), answering PING when this resolves; started
 * again on its old `port` it comes back empty (it keeps nothing on disk).
 */
export async function startOwnRedis(port?: number): Promise<{ url: string; server: ChildProcess }> {
  port ??= await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  try {
    await eventually(() => redisAnswers(url), 10_000);
  } catch (error) {
    server.kill('SIGKILL');
    throw error;
  }
  return { url, server };
}
