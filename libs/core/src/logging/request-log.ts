import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/config';

/** A request that takes longer is logged in every environment. */
export const SLOW_REQUEST_MS = 1000;

/**
 * One line per request, replacing Fastify's two (received, completed). Production logs every request
 * (error for 5xx, warn when slow, info otherwise); development and tests only 5xx and slow requests, so the
 * console's polling does not bury what `npm start` printed.
 */
export function logRequests(
  app: Pick<NestFastifyApplication, 'getHttpAdapter'>,
  config: Pick<AppConfig, 'nodeEnv'>,
  slowMs = SLOW_REQUEST_MS,
): void {
  const everyRequest = config.nodeEnv === 'production';
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const ms = Math.round(reply.elapsedTime);
    const slow = ms >= slowMs;
    if (everyRequest || slow || status >= 500) {
      const level = status >= 500 ? 'error' : slow ? 'warn' : 'info';
      request.log[level](
        { method: request.method, url: request.url, status, ms },
        `${request.method} ${request.url} ${status} ${ms} ms${slow ? ' (slow)' : ''}`,
      );
    }
    done();
  });
}
