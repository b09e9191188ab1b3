import { Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error';
import { RequestContext, RequestScope } from '../tenancy/request-context';
import { AccountsService } from './accounts.service';
import { IS_PUBLIC } from './public.decorator';
import { RateLimiter } from './rate-limiter';

export type ScopedRequest = FastifyRequest & { wharfScope?: RequestScope };

/** The route config key saying how a Nest route is reached: with an API key, or by anyone (@Public). */
export const ROUTE_ACCESS = 'wharfAccess';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

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
  config: (controller: Type, handler: (...args: unknown[]) => unknown) => Record<string, unknown>,
): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (!metatype) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (let proto = prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
        for (const name of Object.getOwnPropertyNames(proto)) {
          const handler = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
          if (name === 'constructor' || typeof handler !== 'function') continue;
          if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
          const own = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined;
          Reflect.defineMetadata(
            FASTIFY_ROUTE_CONFIG_METADATA,
            { ...own, ...config(metatype as Type, handler as (...args: unknown[]) => unknown) },
            handler,
          );
        }
      }
    }
  }
}

/**
 * Authenticates every Nest route that is not @Public() with `Authorization: Bearer <api key>`, rate limits
 * it per key, and sets the request's company scope (RequestContext) — one Fastify hook where two Nest
 * guards ran for each request. Routes Nest does not serve (docs, console files, metrics) are left alone,
 * as the guards left them. Call before the app is initialised (the access of each route is part of its
 * Fastify config).
 */
export function configureAccess(app: NestFastifyApplication): void {
  const reflector = app.get(Reflector);
  addRouteConfig(app, (controller, handler) => ({
    [ROUTE_ACCESS]: reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) ? 'public' : 'key',
  }));
  const accounts = app.get(AccountsService);
  const limiter = app.get(RateLimiter);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preHandler', async (request: ScopedRequest, reply: FastifyReply) => {
      if ((request.routeOptions.config as unknown as Record<string, unknown>)[ROUTE_ACCESS] !== 'key') return;
      const header = request.headers.authorization;
      if (!header) throw unauthorized('Send an API key: Authorization: Bearer <key>.');
      const key = BEARER.exec(header)?.[1];
      if (!key) throw unauthorized('The Authorization header must be "Bearer <key>".');
      const caller = await accounts.authenticate(key);
      if (!caller) throw unauthorized('The API key is malformed, unknown or revoked.');
      request.wharfScope = { companyUuid: caller.companyUuid, apiKeyUuid: caller.apiKeyUuid };
      RequestContext.enter(request.wharfScope);
      await limiter.count(caller.apiKeyUuid, reply);
    });
}
