import { INestApplication } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { appControllers, controllerRoutes } from '../extensions/controller-routes';
import { PermissionCatalog } from '../extensions/permission-catalog';
import type { Operation } from './openapi-names';

/** The permission an operation needs, in the document (as the access stage checks it). */
export const OPENAPI_PERMISSION = 'x-wharf-permission';

/**
 * Marks every route method of the application with the permission it needs (the catalog's rule, as the
 * access stage applies it), so that the document states it per operation.
 */
export function markPermissions(app: INestApplication): void {
  const catalog = app.get(PermissionCatalog, { strict: false });
  for (const controller of appControllers(app)) {
    for (const route of controllerRoutes(controller)) {
      const permission = catalog.routePermission(controller, route);
      if (permission)
        ApiExtension(OPENAPI_PERMISSION, permission)(controller.prototype, route.name, {
          value: route.handler,
        });
    }
  }
}

/** The permission in the operation's description too, where readers of the rendered document see it. */
export function describePermission(operation: Operation): void {
  const permission = operation[OPENAPI_PERMISSION] as string | undefined;
  const needs = permission
    ? `Permission: \`${permission}\` (without it: 403 \`insufficient_permission\`).`
    : 'Permission: none (any API key or portal session).';
  operation.description = operation.description ? `${operation.description}\n\n${needs}` : needs;
}
