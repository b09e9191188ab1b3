import type { Type } from '@nestjs/common';

/** The generated routes a resource controller can serve; `update` is PUT and its PATCH alias. */
export type ResourceRouteKind = 'list' | 'find' | 'create' | 'update' | 'remove';

/** What `@Resource` records on a controller: the entity it serves, and which generated routes. */
export interface ResourceControllerInfo {
  entity: Type;
  routes: ResourceRouteKind[];
}

const RESOURCE_CONTROLLER = Symbol('wharf:resource');

export function markResourceController(controller: object, info: ResourceControllerInfo): void {
  Reflect.defineMetadata(RESOURCE_CONTROLLER, info, controller);
}

/** What a `@Resource` controller serves; undefined for any other class. */
export function resourceControllerInfo(controller: object): ResourceControllerInfo | undefined {
  return Reflect.getMetadata(RESOURCE_CONTROLLER, controller);
}
