import { bullConnection } from '@wharf/core';
import amqp from 'amqplib';
import { Worker } from 'bullmq';

/**
 * The floor of a RabbitMQ destination built on one BullMQ job per delivery: take the job, publish its body
 * as one persistent, mandatory message on a confirm channel, wait for the broker's ack. No signing, no
 * PostgreSQL, no logging. Forked by broker-rounds.ts, in its own process as the real worker is.
 */
const { FLOOR_REDIS_URL, FLOOR_PREFIX, FLOOR_AMQP_URL, FLOOR_EXCHANGE, FLOOR_CONCURRENCY } = process.env;

async function main() {
  const connection = await amqp.connect(FLOOR_AMQP_URL!);
  const channel = await connection.createConfirmChannel();
  const worker = new Worker<{ id: string; body: string }>(
    'floor',
    (job) =>
      new Promise<void>((resolve, reject) => {
        channel.publish(
          FLOOR_EXCHANGE!,
          'warehouse.created',
          Buffer.from(job.data.body),
          { mandatory: true, persistent: true, messageId: job.data.id, contentType: 'application/json' },
          (error: unknown) =>
            error ? reject(error instanceof Error ? error : new Error('nack')) : resolve(),
        );
      }),
    {
      connection: bullConnection(FLOOR_REDIS_URL!),
      prefix: FLOOR_PREFIX,
      concurrency: Number(FLOOR_CONCURRENCY),
    },
  );
  process.on(
    'SIGTERM',
    () =>
      void worker
        .close()
        .then(() => connection.close())
        .then(() => process.exit(0)),
  );
}

void main();
