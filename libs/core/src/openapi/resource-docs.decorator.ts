import { applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiExtension,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../resources/list-query';
import { pluralPath } from '../resources/naming';
import {
  OPENAPI_ERRORS,
  ResourceRouteMethod,
  resourceOperationId,
  resourceSchemas,
  schemaRef,
} from './openapi-names';

/**
 * Statuses a route answers beyond those its shape implies (400, 401, 404 with a path parameter, 413/415 on
 * writes, 422 with a body, 429, 503): each gets the shared error response when the document is built.
 */
export const ApiErrors = (...statuses: number[]) => ApiExtension(OPENAPI_ERRORS, statuses);

/** The `:uuid` path parameter of a record route. */
export const ApiUuidParam = (description = 'The record’s uuid.') =>
  ApiParam({ name: 'uuid', description, schema: { type: 'string', format: 'uuid' } });

/** Paging, sorting and search of the list grammar; column filters are added per resource. */
export const ApiListParameters = () =>
  applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: 'Page size.',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    }),
    ApiQuery({
      name: 'page',
      required: false,
      description: '1-based page number.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    }),
    ApiQuery({
      name: 'offset',
      required: false,
      description: 'Row offset; wins over `page`.',
      schema: { type: 'integer', minimum: 0 },
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      description:
        'Keyset cursor from `meta.next_cursor`: the page after it, at the cost of a first page however deep. Not combinable with `page`/`offset`.',
      schema: { type: 'string' },
    }),
    ApiQuery({
      name: 'sort',
      required: false,
      description: 'Comma list of columns: `name`, `-created_at`, `name:desc`. Default: newest first.',
      schema: { type: 'string' },
    }),
  );

/** What a route's docs are made of: its resource, the plural path and the component names. */
interface RouteNames {
  resource: string;
  plural: string;
  schemas: ReturnType<typeof resourceSchemas>;
}

/** The summary, description and parameters, body and response of each generated route. */
const ROUTE_DOCS: Record<
  ResourceRouteMethod,
  (names: RouteNames) => { summary: string; description: string; more: MethodDecorator[] }
> = {
  list: ({ plural, schemas }) => ({
    summary: `List ${plural}`,
    description:
      `A page of the company’s ${plural}, newest first unless \`sort\` says otherwise. Filter on any ` +
      'column with `<column>=<value>` and the operators of `filters`; page with `limit` and `page`, ' +
      '`offset` or `cursor`.',
    more: [
      ApiListParameters(),
      ApiOkResponse({ description: `A page of ${plural}.`, schema: schemaRef(schemas.list) }),
    ],
  }),
  find: ({ resource, schemas }) => ({
    summary: `Get one ${resource}`,
    description: `The ${resource} with this uuid, with its embedded records.`,
    more: [
      ApiUuidParam(),
      ApiOkResponse({ description: `The ${resource}.`, schema: schemaRef(schemas.single) }),
    ],
  }),
  create: ({ resource, schemas }) => ({
    summary: `Create a ${resource}`,
    description:
      `Creates a ${resource} (and the embedded records sent with it) in one transaction; ` +
      '`Location` is its URL.',
    more: [
      ApiBody({ schema: schemaRef(schemas.createBody) }),
      ApiCreatedResponse({ description: `The created ${resource}.`, schema: schemaRef(schemas.single) }),
    ],
  }),
  update: (names) => updateDocs(names, ''),
  patch: (names) => updateDocs(names, ' (same as PUT)'),
  remove: ({ resource, schemas }) => ({
    summary: `Delete a ${resource}`,
    description: `Deletes the ${resource} and answers it as it was.`,
    more: [
      ApiUuidParam(),
      ApiOkResponse({ description: `The ${resource} as it was.`, schema: schemaRef(schemas.single) }),
    ],
  }),
};

function updateDocs({ resource, schemas }: RouteNames, note: string) {
  return {
    summary: `Update a ${resource}${note}`,
    description: 'Only the fields sent change; an embedded list sent replaces the one stored.',
    more: [
      ApiUuidParam(),
      ApiBody({ schema: schemaRef(schemas.updateBody) }),
      ApiOkResponse({ description: `The updated ${resource}.`, schema: schemaRef(schemas.single) }),
    ],
  };
}

/** OpenAPI metadata of one generated resource route; bodies and records are components named by resource. */
export function ResourceRouteDocs(method: ResourceRouteMethod, resource: string): MethodDecorator {
  const names = { resource, plural: pluralPath(resource), schemas: resourceSchemas(resource) };
  const { summary, description, more } = ROUTE_DOCS[method](names);
  return applyDecorators(
    ApiOperation({ operationId: resourceOperationId(method, resource), summary, description }),
    ...more,
  );
}

/** Tags a resource controller's routes with the resource's plural path. */
export const ResourceControllerDocs = (resource: string): ClassDecorator => ApiTags(pluralPath(resource));
