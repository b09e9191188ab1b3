import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/config';
import type { AfterStage } from './pipeline-stage';

/** A request that takes longer is logged in every environment. */
export const SLOW_REQUEST_MS = 1000;

const SECRET_PARAMETER = /([?&](?:portal_)?token=)[^&#]*/gi;

/** The URL as logged: a `token` query parameter (a secret someone put in a link) is masked. */
export const loggedUrl = (url: string) =>
  url.includes('token=') ? url.replace(SECRET_PARAMETER, '$1[redacted]') : url;

/**
 * Stage `request-log`: one line per request, replacing Fastify's two (received, completed): every request in
 * production or at LOG_LEVEL debug and below (info, warn when slow), only slow ones in development and tests,
 * so the console's requests do not bury what `npm start` printed. Errors are logged where they happen: an
 * unexpected one with its stack by the exception filter, an outage once by the outage monitor, not once per
 * request.
 */
export function logRequests(
  app: Pick<NestFastifyApplication, 'getHttpAdapter'>,
  config: Pick<AppConfig, 'nodeEnv'>,
  slowMs = SLOW_REQUEST_MS,
): AfterStage {
  const level = app.getHttpAdapter().getInstance().log.level;
  // Info lines are written only at LOG_LEVEL info and below: at warn and above, slow requests alone are.
  const everyRequest =
    ['debug', 'trace'].includes(level) || (config.nodeEnv === 'production' && level === 'info');
  return (request, reply) => {
    const ms = Math.round(reply.elapsedTime);
    const slow = ms >= slowMs;
    if (!everyRequest && !slow) return;
    const status = reply.statusCode;
    const url = loggedUrl(request.url);
    request.log[slow ? 'warn' : 'info'](
      { method: request.method, url, status, ms },
      `${request.method} ${url} ${status} ${ms} ms${slow ? ' (slow)' : ''}`,
    );
  };
}
