import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/config';

/** A request that takes longer is logged in every environment. */
export const SLOW_REQUEST_MS = 1000;

/**
 * One line per request, replacing Fastify's two (received, completed): every request in production (info,
 * warn when slow), only slow ones in development and tests, so the console's polling does not bury what
 * `npm start` printed. Errors are logged where they happen: an unexpected one with its stack by the
 * exception filter, an outage once by the outage monitor, not once per request.
 */
export function logRequests(
  app: Pick<NestFastifyApplication, 'getHttpAdapter'>,
  config: Pick<AppConfig, 'nodeEnv'>,
  slowMs = SLOW_REQUEST_MS,
): void {
  const everyRequest = config.nodeEnv === 'production';
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', (request, reply, done) => {
    const ms = Math.round(reply.elapsedTime);
    const slow = ms >= slowMs;
    if (everyRequest || slow) {
      const status = reply.statusCode;
      request.log[slow ? 'warn' : 'info'](
        { method: request.method, url: request.url, status, ms },
        `${request.method} ${request.url} ${status} ${ms} ms${slow ? ' (slow)' : ''}`,
      );
    }
    done();
  });
}
