import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DECORATORS } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { addRouteConfig } from './access.hook';

/** The route config key of a Nest route that needs a body: it takes one (`@Body()`) not documented optional. */
const NEEDS_BODY = 'wharfNeedsBody';
const BODY_PARAMS = new Set([String(RouteParamtypes.BODY), String(RouteParamtypes.RAW_BODY)]);

function needsBody(controller: object, handler: object, method: string): boolean {
  const params = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as object;
  if (!Object.keys(params).some((key) => BODY_PARAMS.has(key.split(':')[0]))) return false;
  const documented = (Reflect.getMetadata(DECORATORS.API_PARAMETERS, handler) ?? []) as {
    in?: string;
    required?: boolean;
  }[];
  return !documented.some((param) => param.in === 'body' && param.required === false);
}

/** Marks, in their Fastify config, the routes that need a body: call before the app is initialised. */
export function markBodyRoutes(app: NestFastifyApplication): void {
  addRouteConfig(app, (controller, handler, method) => ({
    [NEEDS_BODY]: needsBody(controller, handler, method),
  }));
}

/**
 * Whether the route of a request needs a body. One that does not (a delete, an action such as `/enable`,
 * one whose body is optional) takes an empty body as none, whatever its content type: many clients send
 * `content-type: application/json` on every request.
 */
export function needsBodyOf(request: FastifyRequest): boolean {
  return (
    (request.routeOptions.config as unknown as Record<string, unknown> | undefined)?.[NEEDS_BODY] === true
  );
}
