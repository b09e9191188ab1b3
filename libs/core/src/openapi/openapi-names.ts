import { dasherize, pluralPath } from '../resources/naming';

/** `warehouse-section` → `WarehouseSection`: the OpenAPI component name of a resource's record. */
export function schemaName(resource: string): string {
  return dasherize(resource)
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** An operation object of the document, as @nestjs/swagger builds it. */
export type Operation = Record<string, any>;

/** `#/components/schemas/<name>` */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `#/components/responses/<name>` */
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** The generated routes of a resource, as named in its controller. */
export type ResourceRouteMethod = 'list' | 'find' | 'create' | 'update' | 'patch' | 'remove';

/** Stable operation ids of the generated routes: `listWarehouseSections`, `getWarehouseSection`, … */
export function resourceOperationId(method: ResourceRouteMethod, resource: string): string {
  const one = schemaName(resource);
  switch (method) {
    case 'list':
      return `list${schemaName(pluralPath(resource))}`;
    case 'find':
      return `get${one}`;
    case 'remove':
      return `delete${one}`;
    default:
      return `${method}${one}`;
  }
}

/** Component names derived from a resource name (filled in from the registry when the document is built). */
export function resourceSchemas(resource: string) {
  const one = schemaName(resource);
  return {
    record: one,
    /** The record as embedded in another one: without its own embedded records. */
    embedded: `${one}Embedded`,
    createBody: `${one}CreateBody`,
    updateBody: `${one}UpdateBody`,
    single: `${one}Response`,
    list: `${one}ListResponse`,
  };
}

/** Extension listing statuses an operation answers beyond those its shape implies (see ApiErrors). */
export const OPENAPI_ERRORS = 'x-wharf-errors';
