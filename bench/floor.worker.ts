import { bullConnection } from '@wharf/core';
import { Worker } from 'bullmq';
import { Agent, request } from 'undici';

/**
 * The floor of any delivery pipeline built on one BullMQ job per delivery: take the job, POST its body, read
 * the answer. No signing, no PostgreSQL, no logging. Forked by webhooks.bench.ts, in its own process as
 * the real worker is.
 */
const { FLOOR_REDIS_URL, FLOOR_PREFIX, FLOOR_TARGET, FLOOR_CONCURRENCY } = process.env;
const dispatcher = new Agent({ connections: 64 });
const worker = new Worker<{ id: string; body: string }>(
  'floor',
  async (job) => {
    const response = await request(FLOOR_TARGET!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': job.data.id },
      body: job.data.body,
      dispatcher,
    });
    await response.body.text();
  },
  {
    connection: bullConnection(FLOOR_REDIS_URL!),
    prefix: FLOOR_PREFIX,
    concurrency: Number(FLOOR_CONCURRENCY),
  },
);
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
