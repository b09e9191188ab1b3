import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, ensureBuilt } from './support/processes';
import { REDIS_URL } from './support/test-app';

const run = promisify(execFile);
const BULL_CLIENTS = join(ROOT, 'dist', 'libs', 'core', 'src', 'redis', 'bull-clients.js');

/**
 * A process that stops just after it started closes BullMQ connections still starting; BullMQ then emits
 * their failed start as an error with no listener (taskforcesh/bullmq#3546), which ends the process.
 */
describe('BullMQ connections closed while they start', () => {
  beforeAll(() => ensureBuilt());

  it('close without ending the process: every client ends, and the process goes on after it', async () => {
    const script = `
      const { once } = require('node:events');
      const { Queue, RedisConnection, createIORedisClient } = require('bullmq');
      const { Redis } = require('ioredis');
      const clients = [];
      RedisConnection.clientFactory = ({ url, ...options }) => {
        const client = createIORedisClient(new Redis(url, options));
        clients.push(client);
        return client;
      };
      require(${JSON.stringify(BULL_CLIENTS)}).configureBullConnections();
      (async () => {
        for (let i = 0; i < 40; i++) {
          const queue = new Queue('starting', { connection: { url: ${JSON.stringify(REDIS_URL)} }, prefix: 'wharf-test-closing' });
          queue.on('error', () => undefined);
          // Closed at every stage of its start: before it connects, while its first command is out, after.
          await new Promise((resolve) => setTimeout(resolve, i % 8));
          await queue.close();
        }
        await Promise.all(clients.map((client) => (client.status === 'end' ? undefined : once(client, 'end'))));
        // Whatever the closes left to run has run by the next turn.
        setImmediate(() => console.log(JSON.stringify({ clients: clients.length, ended: clients.filter((c) => c.status === 'end').length })));
      })();`;
    const { stdout } = await run(process.execPath, ['-e', script], { cwd: ROOT });
    expect(JSON.parse(stdout.trim())).toEqual({ clients: 40, ended: 40 });
  });
});
