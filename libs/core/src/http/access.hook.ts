import { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/api-error';
import { READ_ONLY_METHODS } from '../common/read-only-methods';
import { RequestContext, RequestScope } from '../tenancy/request-context';
import { KEYS_ONLY, READ_BY_POST } from '../access/access.decorator';
import { AUTHENTICATOR, Authenticator, portalCookie } from '../access/authenticator';
import { IS_PUBLIC } from '../access/public.decorator';
import { insufficientPermission } from '../access/permissions';
import { appControllers, controllerRoutes, routeMethod } from '../extensions/controller-routes';
import { ExtensionError } from '../extensions/extension-error';
import { PermissionCatalog } from '../extensions/permission-catalog';
import { RateLimiter } from './rate-limiter';
import { isPromise, type RouteFacts, type StageFor } from './pipeline-stage';

export type ScopedRequest = FastifyRequest & { wharfScope?: RequestScope };

/**
 * The route config key saying how a Nest route is reached: by anyone (@Public), with an API key only
 * (@KeysOnly), or with an API key or a portal session.
 */
export const ROUTE_ACCESS = 'wharfAccess';
/** The route config key of a POST that only reads (@ReadByPost): open to read-only portal sessions. */
export const ROUTE_READS = 'wharfReads';
/** The route config key of the permission a route needs (none: any authenticated caller, or public). */
export const ROUTE_PERMISSION = 'wharfPermission';
/**
 * The header the console sends with every write made with a portal cookie. A page of another origin cannot
 * send it (CORS allows it no such header, nor credentials), so a cross-site form or fetch cannot ride on
 * the cookie.
 */
export const PORTAL_WRITE_HEADER = 'x-wharf-portal';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function forbidden(detail: string): ApiError {
  return ApiError.of(403, detail);
}

function unauthorized(detail: string): ApiError {
  const error = ApiError.of(401, detail);
  return new ApiError(401, error.errors, { 'www-authenticate': 'Bearer' });
}

/**
 * Adds `config` to the Fastify route config of every route method of every controller (Nest hands it to
 * Fastify when it registers the route): call before the app is initialised.
 */
export function addRouteConfig(
  app: NestFastifyApplication,
  config: (
    controller: Type,
    handler: (...args: unknown[]) => unknown,
    method: string,
  ) => Record<string, unknown>,
): void {
  for (const controller of appControllers(app)) {
    for (const { handler, name } of controllerRoutes(controller)) {
      const own = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined;
      Reflect.defineMetadata(
        FASTIFY_ROUTE_CONFIG_METADATA,
        { ...own, ...config(controller, handler, name) },
        handler,
      );
    }
  }
}

type Access = 'public' | 'keys' | 'key';

/** The `authenticate` and `rate-limit` stages of the request pipeline (see configureAccess). */
export interface AccessStages {
  authenticate: StageFor<'preHandler'>;
  rateLimit: StageFor<'preHandler'>;
}

/**
 * Authenticates every Nest route that is not @Public(): with `Authorization: Bearer <api key>`, or with a
 * portal session's cookie (see PortalSessionsService), and sets the request's company scope
 * (RequestContext); then rate limits it per key or session. A portal session reaches no @KeysOnly route, and
 * a read-only one no write (any method but GET/HEAD, except a @ReadByPost route). Routes Nest does not serve
 * (docs, console files, metrics) are left alone. Call before the app is initialised (the access of each
 * route is part of its Fastify config, and the stages are chosen per route from it).
 */
export function configureAccess(app: NestFastifyApplication): AccessStages {
  const reflector = app.get(Reflector);
  const catalog = app.get(PermissionCatalog);
  addRouteConfig(app, (controller, handler, name) => {
    const flag = (key: string) => reflector.getAllAndOverride<boolean>(key, [handler, controller]) === true;
    const permission = catalog.routePermission(controller, { name, handler, method: routeMethod(handler) });
    if (permission === undefined)
      throw new ExtensionError('host', `route ${controller.name}.${name}`, 'names no permission');
    return {
      [ROUTE_ACCESS]: flag(IS_PUBLIC) ? 'public' : flag(KEYS_ONLY) ? 'keys' : 'key',
      [ROUTE_READS]: flag(READ_BY_POST),
      [ROUTE_PERMISSION]: permission ?? undefined,
    };
  });
  const authenticator = app.get<Authenticator>(AUTHENTICATOR);
  const limiter = app.get(RateLimiter);
  const guarded = ({ config }: RouteFacts) =>
    config[ROUTE_ACCESS] === 'key' || config[ROUTE_ACCESS] === 'keys';
  return {
    authenticate: (route) => {
      if (!guarded(route)) return undefined;
      const access: RouteAccess = {
        access: route.config[ROUTE_ACCESS] as Access,
        reads: route.config[ROUTE_READS] === true,
        permission: route.config[ROUTE_PERMISSION] as string | undefined,
      };
      return (request) => authenticate(authenticator, request, access);
    },
    rateLimit: (route) =>
      guarded(route)
        ? (request: ScopedRequest, reply) => {
            const scope = request.wharfScope!;
            return limiter.count(scope.portal?.sessionUuid ?? scope.apiKeyUuid!, reply);
          }
        : undefined,
  };
}

/** What the authenticate stage checks on a route, decided once per route. */
interface RouteAccess {
  access: Access;
  /** A POST that only reads (@ReadByPost): open to read-only portal sessions. */
  reads: boolean;
  permission: string | undefined;
}

/**
 * Stage `authenticate`: the caller's scope, from its API key or its portal session's cookie, and whether it
 * holds the route's permission (its grants were compiled with its cached credential: one Set lookup).
 * Synchronous for a cached key (the common case), so the request goes on in the same turn.
 */
function authenticate(
  authenticator: Authenticator,
  request: ScopedRequest,
  route: RouteAccess,
): undefined | Promise<undefined> {
  const header = request.headers.authorization;
  const cookie = header ? undefined : portalCookie(request.headers.cookie);
  if (cookie !== undefined) return authenticatePortal(authenticator, request, cookie, route);
  if (!header) throw unauthorized('Send an API key: Authorization: Bearer <key>.');
  const key = BEARER.exec(header)?.[1];
  if (!key) throw unauthorized('The Authorization header must be "Bearer <key>".');
  const found = authenticator.byApiKey(key);
  return isPromise(found)
    ? found.then((scope) => admitKey(request, scope, route.permission))
    : admitKey(request, found, route.permission);
}

function admitKey(request: ScopedRequest, scope: RequestScope | undefined, permission?: string): undefined {
  if (!scope?.apiKeyUuid) throw unauthorized('The API key is malformed, unknown or revoked.');
  return admit(request, scope, permission);
}

/** The caller, once known, may do what the route does: its scope becomes the request's. */
function admit(request: ScopedRequest, scope: RequestScope, permission: string | undefined): undefined {
  if (permission !== undefined && !scope.grants?.has(permission)) throw insufficientPermission(permission);
  request.wharfScope = scope;
  RequestContext.enter(scope);
  return undefined;
}

async function authenticatePortal(
  authenticator: Authenticator,
  request: ScopedRequest,
  cookie: string,
  { access, reads, permission }: RouteAccess,
): Promise<undefined> {
  const scope = await authenticator.byPortalCookie(cookie);
  if (!scope?.portal)
    throw unauthorized('The portal session has expired or was revoked: open a new portal link.');
  if (access === 'keys') throw forbidden('A portal session cannot do this: use an API key.');
  if (!READ_ONLY_METHODS.has(request.method)) {
    if (request.headers[PORTAL_WRITE_HEADER] !== '1')
      throw forbidden(`A write with a portal session must send the ${PORTAL_WRITE_HEADER}: 1 header.`);
    if (scope.portal.readOnly && !reads) throw forbidden('This portal session is read-only.');
  }
  return admit(request, scope, permission);
}
