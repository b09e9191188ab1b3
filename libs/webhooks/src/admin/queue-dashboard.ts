import { timingSafeEqual } from 'node:crypto';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, OutageMonitor, errorObject, queueConnection } from '@wharf/core';
import { Cluster } from 'ioredis';
import { DELIVERY_QUEUE } from '../jobs/delivery-job';
import { reportQueueErrors } from '../jobs/queue-errors';
import { untilQueueSettles } from '../jobs/queue-ready';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

function same(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `Bearer <ADMIN_TOKEN>` for tools, or HTTP Basic with ADMIN_TOKEN as the password for a browser (which
 * then sends it with every call the dashboard makes).
 */
export function adminAuthorized(authorization: string | undefined, token: string): boolean {
  const [scheme, value = ''] = (authorization ?? '').split(' ', 2);
  if (/^bearer$/i.test(scheme)) return same(value, token);
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    return same(decoded.slice(decoded.indexOf(':') + 1), token);
  }
  return false;
}

/**
 * The BullMQ dashboard (bull-board) at /admin/queues, read-only (no retry, clean or remove buttons), mounted
 * only when ADMIN_TOKEN is set and only behind it. The api has no delivery queue of its own (it only writes
 * events): the dashboard opens one, with BullMQ, when it is mounted, and closes it with the app.
 */
export async function mountQueueDashboard(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const token = config.adminToken;
  if (!token) return;
  // Loaded only when mounted: an api without the dashboard never pays bull-board's heap.
  const [
    { createBullBoard },
    { BullMQAdapter },
    { FastifyAdapter },
    { Queue },
    { configureBullConnections },
  ] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
    import('bullmq'),
    import('@wharf/core/redis/bull-clients'),
  ]);
  configureBullConnections();
  const connection = queueConnection(config, 'producer');
  const queue = new Queue(DELIVERY_QUEUE, { connection, prefix: config.queuePrefix });
  reportQueueErrors(queue, 'queue dashboard', app.get(OutageMonitor));
  const fastify = app.getHttpAdapter().getInstance();
  // Before anything that may throw, so the queue is closed with the app whatever happens next.
  fastify.addHook('onClose', async () => {
    await untilQueueSettles(queue);
    await queue.close();
    // BullMQ closes the clients it made, not a cluster client it was given.
    if (connection instanceof Cluster) connection.disconnect();
  });
  const board = new FastifyAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queue, { readOnlyMode: true })],
    serverAdapter: board,
  });
  await fastify.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (adminAuthorized(request.headers.authorization, token)) return;
      await reply
        .status(401)
        .header('www-authenticate', 'Basic realm="Wharf admin", charset="UTF-8"')
        .type('application/json; charset=utf-8')
        .send({ errors: [errorObject(401, 'The queue dashboard needs the admin token (ADMIN_TOKEN).')] });
    });
    await scope.register(board.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  });
}
