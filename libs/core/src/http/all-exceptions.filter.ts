import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OutageMonitor } from '../health/outage-monitor';
import { methodNotAllowed, toErrorResponse } from '../common/error-response';
import { allowedMethods, isNoRoute } from './http-conventions';

/** The single place that turns errors into HTTP answers. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  constructor(private readonly outages: OutageMonitor) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    // A path that is served, with another method: 405 saying which (only on the no-route path).
    const allow = isNoRoute(error) ? allowedMethods(request.server, request.url) : [];
    const response = allow.length
      ? methodNotAllowed(request.method, request.url, allow)
      : toErrorResponse(error, String(request.id));
    // An outage is logged once by the monitor, with a count, not once per request with a stack.
    if (response.outage) this.outages.failed(response.outage, error);
    else if (response.unexpected) {
      const err = response.unexpected as Error;
      this.logger.error({
        msg: 'unhandled error',
        reqId: request.id,
        err: { message: err?.message, stack: err?.stack },
      });
    }
    void http
      .getResponse<FastifyReply>()
      .status(response.status)
      .headers(response.headers)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(response.body));
  }
}
