import { hash } from 'node:crypto';
import { createRequire } from 'node:module';
import { NotFoundException } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type FindMyWay from 'find-my-way';
import { errorObject } from '../common/api-error';
import { noRouteDetail } from '../common/error-response';
import type { ReplyWith, StageFor } from './pipeline-stage';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];
type Router = FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;

/** A copy of the route table, to say which methods a path has (Fastify's router only answers one method). */
const routers = new WeakMap<object, Router>();

const noop = () => undefined;

/** The root instance: route tables are kept per application, and hooks see encapsulated children. */
function rootOf(fastify: FastifyInstance): object {
  let current = fastify as unknown as { [key: symbol]: unknown };
  while (!routers.has(current)) {
    const parent = Object.getPrototypeOf(current) as typeof current | null;
    if (!parent || parent === Object.prototype) break;
    current = parent;
  }
  return current;
}

/** The methods served at a concrete path (`/a/b?x`), OPTIONS included when any is; none for an unknown path. */
export function allowedMethods(fastify: FastifyInstance, url: string): string[] {
  const router = routers.get(rootOf(fastify));
  if (!router) return [];
  const path = url.split('?')[0];
  // An empty segment is no record (`/warehouses/` is not `/warehouses/:uuid`), as the routes themselves treat it.
  const serves = (method: Method) => {
    const found = router.find(method, path);
    return found !== null && !Object.values(found.params).includes('');
  };
  const allowed = METHODS.filter(serves);
  return allowed.length ? [...allowed, 'OPTIONS'] : [];
}

/** Whether an error is Nest's answer to a request no route matched (method and path together). */
export function isNoRoute(error: unknown): boolean {
  return error instanceof NotFoundException && /^Cannot [A-Z]+ /.test(error.message);
}

/** `If-None-Match` holds this tag, compared weakly as RFC 9110 says for it (or is `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/**
 * A strong ETag of a GET's JSON body (its hash: no extra read), and 304 without the body while the
 * client's `If-None-Match` still holds it. @fastify/etag tags every method and status and would answer a
 * POST with 304, so this hook keeps to successful GETs and HEADs.
 */
function etag<Body extends string | Buffer>(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Body,
): Body | '' {
  const tag = `"${hash('sha1', payload, 'base64url')}"`;
  void reply.header('etag', tag);
  if (!matches(request.headers['if-none-match'], tag)) return payload;
  void reply.code(304);
  return '';
}

/** `Location` of a 201: the collection's path and the created record's uuid (the body's only record). */
function location(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer): void {
  if (reply.hasHeader('location')) return;
  let uuid: unknown;
  try {
    // Creates only, and a parse is robust to the order the record's fields are serialised in.
    const record = Object.values(JSON.parse(payload.toString()) as Record<string, { uuid?: unknown }>)[0];
    uuid = record?.uuid;
  } catch {
    return;
  }
  if (typeof uuid !== 'string') return;
  // The path requested, not the route's pattern (which may hold `:uuid`).
  const collection = request.url.split('?')[0].replace(/\/$/, '');
  void reply.header('location', `${collection}/${encodeURIComponent(uuid)}`);
}

/**
 * The route table that 405 + `Allow` and plain `OPTIONS` are answered from: call before any route is
 * registered. The conventions themselves are stages of the request pipeline: `options` (before CORS) and
 * `conventions` (ETag/304 on GETs, `Location` on 201).
 */
export function configureHttpConventions(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  // Fastify's own find-my-way, so paths match exactly as its router matches them.
  const createRouter = createRequire(require.resolve('fastify'))('find-my-way') as typeof FindMyWay;
  const router: Router = createRouter();
  routers.set(fastify, router);
  fastify.addHook('onRoute', (route) => {
    for (const method of ([] as string[]).concat(route.method)) {
      if (!METHODS.includes(method as Method)) continue;
      for (const served of method === 'GET' ? ['GET', 'HEAD'] : [method]) {
        if (!router.hasRoute(served as Method, route.url)) router.on(served as Method, route.url, noop);
      }
    }
  });
}

/**
 * Stage `options`: an `OPTIONS` that is not a CORS preflight (those carry Access-Control-Request-Method and
 * are CORS's) is answered here, 204 with `Allow` or 404 in the error format. Only where an OPTIONS can
 * arrive: a route that serves it (CORS's catch-all) or no route at all.
 */
export const answerOptions: StageFor<'onRequest'> = (route) =>
  route.url === undefined || route.methods.includes('OPTIONS') ? plainOptions : undefined;

function plainOptions(request: FastifyRequest): ReplyWith | undefined {
  if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined) {
    return undefined;
  }
  const allow = allowedMethods(request.server, request.url);
  if (allow.length) return { status: 204, headers: { allow: allow.join(', ') } };
  return {
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ errors: [errorObject(404, noRouteDetail('OPTIONS', request.url))] }),
  };
}

/**
 * Stage `conventions`: `ETag`/304 on a successful GET or HEAD, `Location` on a 201. A body built as JSON
 * text comes as a Buffer (JsonText.bytes), any other as a string; a stream is left alone.
 */
export function conventions(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  const status = reply.statusCode;
  if (status === 201) location(request, reply, payload);
  else if (status === 200 && (request.method === 'GET' || request.method === 'HEAD')) {
    return etag(request, reply, payload);
  }
  return payload;
}
