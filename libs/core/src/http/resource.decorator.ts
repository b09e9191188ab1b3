import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Type,
} from '@nestjs/common';
import { ResourceControllerDocs, ResourceRouteDocs } from '../openapi/resource-docs.decorator';
import { ResourceRouteMethod } from '../openapi/openapi-names';
import { pluralAlias, pluralPath } from '../resources/naming';
import { resourceModel } from '../resources/resource-model.decorator';
import { ResourceServices } from '../extensions/resource-services';

const RESOURCE_ENTITY = Symbol('wharf:resource');
/** On a generated route method: which resource and route it serves (see serveResourceRoutes). */
export const RESOURCE_ROUTE = Symbol('wharf:resource-route');

/** What a generated route method serves. */
export interface ResourceRoute {
  entity: Type;
  method: ResourceRouteMethod;
}
const SERVICES = Symbol('wharf:resource-services');

interface ResourceHandlers {
  [SERVICES]: ResourceServices;
}

/** The generated routes a resource controller can serve; `update` is PUT and its PATCH alias. */
export type ResourceRouteKind = 'list' | 'find' | 'create' | 'update' | 'remove';

export interface ResourceOptions {
  /** The generated routes to serve (default: all five); e.g. `['list', 'find']` for a read-only resource. */
  routes?: ResourceRouteKind[];
}

type Route = {
  method: ResourceRouteMethod;
  kind: ResourceRouteKind;
  decorate: MethodDecorator;
  params: ((target: object, key: string, index: number) => void)[];
  status?: number;
  call: (entity: Type) => (this: ResourceHandlers, ...args: any[]) => Promise<unknown>;
};

/** The five routes of a resource (PATCH as an alias of PUT); each handler is one call into the resource service. */
const ROUTES: Route[] = [
  {
    method: 'list',
    kind: 'list',
    decorate: Get(),
    params: [Query()],
    call: (e) =>
      function (q) {
        return this[SERVICES].for(e).listJson(q);
      },
  },
  {
    method: 'find',
    kind: 'find',
    decorate: Get(':uuid'),
    params: [Param('uuid')],
    call: (e) =>
      function (u) {
        return this[SERVICES].for(e).findJson(u);
      },
  },
  {
    method: 'create',
    kind: 'create',
    decorate: Post(),
    params: [Body()],
    status: 201,
    call: (e) =>
      function (b) {
        return this[SERVICES].for(e).createJson(b);
      },
  },
  {
    method: 'update',
    kind: 'update',
    decorate: Put(':uuid'),
    params: [Param('uuid'), Body()],
    call: (e) =>
      function (u, b) {
        return this[SERVICES].for(e).updateJson(u, b);
      },
  },
  {
    method: 'patch',
    kind: 'update',
    decorate: Patch(':uuid'),
    params: [Param('uuid'), Body()],
    call: (e) =>
      function (u, b) {
        return this[SERVICES].for(e).updateJson(u, b);
      },
  },
  {
    method: 'remove',
    kind: 'remove',
    decorate: Delete(':uuid'),
    params: [Param('uuid')],
    status: 200,
    call: (e) =>
      function (u) {
        return this[SERVICES].for(e).remove(u);
      },
  },
];

/**
 * Binds a controller to a resource, named by its entity class so that a typo cannot compile, and defines
 * its REST routes when the class is defined (like @nestjsx/crud):
 * `@Resource(Warehouse) export class WarehouseController {}` serves
 * `GET|POST /warehouses`, `GET|PUT|PATCH|DELETE /warehouses/:uuid` under the extension's namespace.
 * Methods the class defines itself are left alone, and its own routes sit beside these. Each generated
 * route carries its OpenAPI description (bodies and records are components built from the registry).
 */
export function Resource(entity: Type, options: ResourceOptions = {}): ClassDecorator {
  const served = new Set(options.routes ?? ROUTES.map((route) => route.kind));
  return (target) => {
    const name = resourceModel(entity)?.name;
    if (!name) {
      throw new Error(
        `@Resource(${entity?.name ?? String(entity)}) on ${target.name}: not an entity with @ResourceModel (or imported in a cycle)`,
      );
    }
    const prototype = target.prototype as Record<string, unknown>;
    Reflect.defineMetadata(RESOURCE_ENTITY, entity, target);
    Inject(ResourceServices)(prototype, SERVICES);
    for (const route of ROUTES) {
      if (!served.has(route.kind) || Object.prototype.hasOwnProperty.call(prototype, route.method)) continue;
      const handler = route.call(entity);
      Object.defineProperty(handler, 'name', { value: route.method });
      Object.defineProperty(prototype, route.method, {
        value: handler,
        writable: true,
        configurable: true,
      });
      Reflect.defineMetadata(
        RESOURCE_ROUTE,
        { entity, method: route.method } satisfies ResourceRoute,
        handler,
      );
      const descriptor = Object.getOwnPropertyDescriptor(prototype, route.method)!;
      route.params.forEach((decorate, index) => decorate(prototype, route.method, index));
      Reflect.defineMetadata(
        'design:paramtypes',
        route.params.map(() => Object),
        prototype,
        route.method,
      );
      route.decorate(prototype, route.method, descriptor);
      if (route.status) HttpCode(route.status)(prototype, route.method, descriptor);
      ResourceRouteDocs(route.method, name)(prototype, route.method, descriptor);
    }
    ResourceControllerDocs(name)(target);
    const alias = pluralAlias(name);
    Controller(alias ? [pluralPath(name), alias] : pluralPath(name))(target);
  };
}

/** The entity class a `@Resource` controller serves. */
export function resourceEntity(controller: object): Type | undefined {
  return Reflect.getMetadata(RESOURCE_ENTITY, controller);
}

/** The resource name a `@Resource` controller serves. */
export function resourceName(controller: object): string | undefined {
  const entity = resourceEntity(controller);
  return entity ? resourceModel(entity)?.name : undefined;
}
