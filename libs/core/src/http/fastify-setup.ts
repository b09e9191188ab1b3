import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { checkQuery, parseJsonBody } from './input-guard';

export const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accept a sane client-supplied x-request-id so traces join up; otherwise mint one. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

export function createFastifyAdapter(logger: object): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: BODY_LIMIT,
    genReqId: requestId,
    loggerInstance: logger as never,
    trustProxy: true,
  });
}

/**
 * Wire-level conventions of DESIGN.md 3 that live below Nest's router: JSON bodies only, request ids, and
 * the one place hostile input is refused for every route (resources, custom routes, management API):
 * over-deep bodies (400, before parsing), NUL and lone surrogates in any body string or key (422) or query
 * parameter (400). Create the Nest app with `bodyParser: false`: this parser replaces Nest's.
 * Fastify's own errors (413, 415, bad JSON) reach the global AllExceptionsFilter through Nest's error handler.
 */
export function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_request, text, done) => {
      try {
        done(null, parseJsonBody(text as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  fastify.addHook('preValidation', (request, _reply, done) => {
    try {
      checkQuery(request.query);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    if (hasBody(request.headers) && !isJson(request.headers['content-type'])) {
      done(
        new UnsupportedMediaTypeException('Send the request body as JSON (content-type: application/json).'),
      );
      return;
    }
    done();
  });
}
