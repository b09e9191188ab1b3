import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response';

/** The single place that turns errors into HTTP answers. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    send(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>(), this.logger);
  }
}

export function send(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const response = toErrorResponse(error, String(request.id));
  if (response.unexpected) {
    const err = response.unexpected as Error;
    logger.error({
      msg: 'unhandled error',
      reqId: request.id,
      err: { message: err?.message, stack: err?.stack },
    });
  }
  void reply
    .status(response.status)
    .headers(response.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(response.body));
}
