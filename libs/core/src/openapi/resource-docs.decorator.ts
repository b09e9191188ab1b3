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

/** OpenAPI metadata of one generated resource route; bodies and records are components named by resource. */
export function ResourceRouteDocs(method: ResourceRouteMethod, resource: string): MethodDecorator {
  const schemas = resourceSchemas(resource);
  const operationId = resourceOperationId(method, resource);
  const plural = pluralPath(resource);
  switch (method) {
    case 'list':
      return applyDecorators(
        ApiOperation({
          operationId,
          summary: `List ${plural}`,
          description:
            `A page of the company’s ${plural}, newest first unless \`sort\` says otherwise. Filter on any ` +
            'column with `<column>=<value>` and the operators of `filters`; page with `limit` and `page`, ' +
            '`offset` or `cursor`.',
        }),
        ApiListParameters(),
        ApiOkResponse({ description: `A page of ${plural}.`, schema: schemaRef(schemas.list) }),
      );
    case 'find':
      return applyDecorators(
        ApiOperation({
          operationId,
          summary: `Get one ${resource}`,
          description: `The ${resource} with this uuid, with its embedded records.`,
        }),
        ApiUuidParam(),
        ApiOkResponse({ description: `The ${resource}.`, schema: schemaRef(schemas.single) }),
      );
    case 'create':
      return applyDecorators(
        ApiOperation({
          operationId,
          summary: `Create a ${resource}`,
          description:
            `Creates a ${resource} (and the embedded records sent with it) in one transaction; ` +
            '`Location` is its URL.',
        }),
        ApiBody({ schema: schemaRef(schemas.createBody) }),
        ApiCreatedResponse({ description: `The created ${resource}.`, schema: schemaRef(schemas.single) }),
      );
    case 'update':
    case 'patch':
      return applyDecorators(
        ApiOperation({
          operationId,
          summary: `Update a ${resource}${method === 'patch' ? ' (same as PUT)' : ''}`,
          description: 'Only the fields sent change; an embedded list sent replaces the one stored.',
        }),
        ApiUuidParam(),
        ApiBody({ schema: schemaRef(schemas.updateBody) }),
        ApiOkResponse({ description: `The updated ${resource}.`, schema: schemaRef(schemas.single) }),
      );
    case 'remove':
      return applyDecorators(
        ApiOperation({
          operationId,
          summary: `Delete a ${resource}`,
          description: `Deletes the ${resource} and answers it as it was.`,
        }),
        ApiUuidParam(),
        ApiOkResponse({ description: `The ${resource} as it was.`, schema: schemaRef(schemas.single) }),
      );
  }
}

/** Tags a resource controller's routes with the resource's plural path. */
export const ResourceControllerDocs = (resource: string): ClassDecorator => ApiTags(pluralPath(resource));
