import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { UnsupportedMediaTypeException } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { errorObject } from '../common/api-error';
import { BODY_LIMIT, limitBodies } from './body-limit';
import { markBodyRoutes, needsBodyOf } from './body-routes';
import { checkQuery, parseJsonBody } from './input-guard';
import { JsonText } from '../common/json-text';
import { lazyChildLogger } from '../logging/logger';
import { RequestContext } from '../tenancy/request-context';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Around, Outcome } from './pipeline-stage';

export { BODY_LIMIT };
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

const isBlank = (text: string) => /^\s*$/.test(text);

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && JSON_TYPE.test(contentType);
}

const errorBody = (status: number, detail: string) =>
  JSON.stringify({ errors: [errorObject(status, detail)] });

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers too large, malformed): answered in
 * the error format like everything else, then the connection is closed as Node would.
 */
function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request headers (or the URL) are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request took too long to arrive.']
        : [400, 'The request is not valid HTTP.'];
  const body = errorBody(status, detail);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Fastify's default JSON-schema compilers (ajv and fast-json-stringify), loaded only when a route first
 * declares a schema to compile. Fastify builds them when the server is made, but no route of Wharf's
 * has one (Nest validates with class-validator): they would hold heap for nothing. Custom
 * builders make Fastify pass header schemas through unchanged instead of lower-casing their keys; no
 * route here has a header schema.
 */
function lazySchemaCompilers() {
  // Resolved from Fastify's own location: the versions it would load itself.
  const fromFastify = createRequire(require.resolve('fastify'));
  let validator: ((...args: unknown[]) => unknown) | undefined;
  let serializer: ((...args: unknown[]) => unknown) | undefined;
  return {
    buildValidator: (...args: unknown[]) => (validator ??= fromFastify('@fastify/ajv-compiler')())(...args),
    buildSerializer: (...args: unknown[]) =>
      (serializer ??= fromFastify('@fastify/fast-json-stringify-compiler')())(...args),
  };
}

/** Fastify's LogController, of the copy of Fastify Nest runs (its instance check is by class). */
function quietRequests() {
  const fastify = createRequire(require.resolve('@nestjs/platform-fastify'))('fastify') as {
    LogController: new (options: { disableRequestLogging: boolean }) => unknown;
  };
  return new fastify.LogController({ disableRequestLogging: true }) as never;
}

export function createFastifyAdapter(logger: object): FastifyAdapter {
  return new FastifyAdapter({
    schemaController: { compilersFactory: lazySchemaCompilers() },
    bodyLimit: BODY_LIMIT,
    genReqId: requestId,
    loggerInstance: logger as never,
    // The request-log stage writes one line per request instead, and only where it is wanted.
    logController: quietRequests(),
    childLoggerFactory: lazyChildLogger as never,
    trustProxy: true,
    clientErrorHandler,
    // No Nest middleware: per-request work is a stage of the request pipeline, so @fastify/middie's hook
    // would run for nothing on every request.
    skipMiddie: true,
    // Router-level refusals (a path that is not valid percent-encoding, an over-long path parameter).
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      const status = tooLong ? 414 : 400;
      void reply
        .status(status)
        .type('application/json; charset=utf-8')
        .send(
          errorBody(
            status,
            tooLong ? 'A path segment is too long.' : 'The URL path is not valid percent-encoded UTF-8.',
          ),
        );
    },
  });
}

/**
 * Wire-level conventions that live below Nest's router: JSON bodies only and the one place hostile input is
 * refused for every route (resources, custom routes, management API): oversize bodies (413, body-limit.ts),
 * over-deep ones (400, before parsing), NUL and lone surrogates in any body string or key (422) or query
 * parameter (400, the `query` stage); an empty body is none where the route needs none (body-routes.ts).
 * Create the Nest app with `bodyParser: false`: this parser replaces Nest's. Fastify's own errors (415, bad
 * JSON) reach the global AllExceptionsFilter through Nest's error handler.
 */
export function configureHttp(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  markBodyRoutes(app);
  limitBodies(fastify, BODY_LIMIT);
  fastify.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (request, text, done) => {
      try {
        done(
          null,
          !needsBodyOf(request) && isBlank(text as string) ? undefined : parseJsonBody(text as string),
        );
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  // JSON text PostgreSQL built goes out as it is, as bytes (Fastify sends a Buffer a serializer returns
  // unchanged; its types say string); everything else as Fastify writes it without a schema.
  fastify.setReplySerializer((payload) =>
    payload instanceof JsonText ? (payload.bytes() as unknown as string) : JSON.stringify(payload),
  );
}

/**
 * Stage `request-context`: every answer carries the request's id, and the rest of the request runs in its
 * own (still empty) RequestContext, which authentication fills in.
 */
export function openRequest(request: FastifyRequest, reply: FastifyReply): Around {
  void reply.header('x-request-id', request.id);
  return { around: (rest) => RequestContext.open(rest, request) };
}

/** Stage `json-only`: a body that is not JSON is a 415 before it is read. */
export function refuseNonJson(request: FastifyRequest): Outcome {
  if (hasBody(request.headers) && !isJson(request.headers['content-type'])) {
    return new UnsupportedMediaTypeException(
      'Send the request body as JSON (content-type: application/json).',
    );
  }
  return undefined;
}

/** Stage `query`: a NUL or a lone surrogate in a query parameter is a 400 naming it. */
export function refuseBadQuery(request: FastifyRequest): Outcome {
  checkQuery(request.query);
  return undefined;
}

/** Stage `after-response`: the work a successful request left for once its answer is out (its writes committed). */
export function responded(request: FastifyRequest, reply: FastifyReply): void {
  RequestContext.responded(request, reply.statusCode);
}
