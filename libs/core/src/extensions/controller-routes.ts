import { INestApplicationContext, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';

/** One route method of a controller, as its decorators declare it. */
export interface ControllerRoute {
  /** The method's name (`list`, `close`). */
  name: string;
  handler: (...args: unknown[]) => unknown;
  /** GET, POST, … */
  method: string;
  /** The controller's path and the method's, for messages: `orders/:uuid/status`. */
  path: string;
}

/** The HTTP method a route method is declared with (GET when it declares none). */
export function routeMethod(handler: object): string {
  return RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'GET';
}

function first(path: unknown): string {
  const value: unknown = Array.isArray(path) ? path[0] : path;
  return typeof value === 'string' ? value : '';
}

/** Every route method of a controller, inherited ones included. */
export function controllerRoutes(controller: Type): ControllerRoute[] {
  const routes: ControllerRoute[] = [];
  const base = first(Reflect.getMetadata(PATH_METADATA, controller));
  const seen = new Set<string>();
  const prototype = controller.prototype as Record<string, unknown>;
  for (let proto = prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (name === 'constructor' || seen.has(name) || typeof handler !== 'function') continue;
      seen.add(name);
      const path = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (path === undefined) continue;
      const method = routeMethod(handler);
      const full = [base, first(path)].filter((part) => part && part !== '/').join('/');
      routes.push({ name, handler: handler as ControllerRoute['handler'], method, path: full });
    }
  }
  return routes;
}

/** Every controller of the application's modules. */
export function appControllers(app: INestApplicationContext): Type[] {
  const controllers: Type[] = [];
  for (const module of app.get(ModulesContainer).values())
    for (const { metatype } of module.controllers.values()) if (metatype) controllers.push(metatype as Type);
  return controllers;
}
