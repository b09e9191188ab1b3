import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { OPENAPI_PUBLIC } from '../auth/public.decorator';
import { ERROR_TITLES, errorObject } from '../http/api-error';
import { attributePointer } from '../http/pointer';
import { EXACT_TOTAL_LIMIT } from '../resources/list-query';
import { pluralAlias } from '../resources/naming';
import { ResourceDefinition } from '../resources/resource-definition';
import { ResourceRegistry } from '../resources/resource-registry';
import { JsonSchema } from './dto-schema';
import { resourceOperationId, responseRef, schemaRef } from './openapi-names';
import { listFilterParameters, resourceComponents } from './resource-components';

export const DOCS_PATH = 'docs';
export const DOCS_JSON_PATH = 'docs-json';
const SECURITY_SCHEME = 'api_key';

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '404': 'NotFound',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'UnprocessableEntity',
  '429': 'TooManyRequests',
  '500': 'InternalError',
};

const SHARED_SCHEMAS: Record<string, JsonSchema> = {
  ListMeta: {
    type: 'object',
    properties: {
      total: {
        type: 'integer',
        description: `Records matching the filters: exact up to ${EXACT_TOTAL_LIMIT}; past that (\`total_exact: false\`) a lower bound: on a page/offset page at least one more than its last record while a next page exists (so \`last_page\` admits it), exact again on the last page.`,
      },
      total_exact: {
        type: 'boolean',
        description: `false when more than ${EXACT_TOTAL_LIMIT} records match and \`total\` is a lower bound (the count stops there so every page costs the same).`,
      },
      per_page: { type: 'integer' },
      current_page: { type: 'integer', nullable: true, description: 'null on a page reached by `cursor`.' },
      last_page: { type: 'integer' },
      from: { type: 'integer', nullable: true },
      to: { type: 'integer', nullable: true },
      next_cursor: {
        type: 'string',
        nullable: true,
        description: 'Pass as `cursor` (with the same `sort`) for the next page; null on the last page.',
      },
    },
    required: ['total', 'total_exact', 'per_page', 'current_page', 'last_page', 'from', 'to', 'next_cursor'],
  },
  ErrorObject: {
    type: 'object',
    description: 'A JSON:API error object.',
    properties: {
      status: { type: 'string', example: '422' },
      code: { type: 'string', example: 'invalid' },
      title: { type: 'string' },
      detail: { type: 'string' },
      source: {
        type: 'object',
        properties: {
          pointer: {
            type: 'string',
            description: 'The field at fault, as JSON:API clients (Ember Data) map it onto record errors.',
            example: attributePointer('sections', 0, 'name'),
          },
          parameter: { type: 'string', description: 'The query parameter at fault.', example: 'sort' },
        },
      },
      meta: { type: 'object', additionalProperties: true },
    },
    required: ['status', 'code', 'title', 'detail'],
  },
  Errors: {
    type: 'object',
    properties: { errors: { type: 'array', items: schemaRef('ErrorObject'), minItems: 1 } },
    required: ['errors'],
  },
};

const VALIDATION_EXAMPLE = {
  errors: [
    errorObject(422, 'name is required.', { source: { pointer: attributePointer('name') } }),
    errorObject(422, 'name must be shorter than or equal to 255 characters.', {
      source: { pointer: attributePointer('sections', 0, 'name') },
    }),
  ],
};

type Operation = Record<string, any>;

function operations(document: OpenAPIObject): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([method, operation]): [string, string, Operation] => [path, method, operation]),
  );
}

/** The error responses an operation can give, from what it takes. */
function errorStatuses(path: string, operation: Operation, isPublic: boolean): string[] {
  const statuses = ['500'];
  if (!isPublic) statuses.push('401', '429');
  if (path.includes('{')) statuses.push('404');
  if (operation.requestBody) statuses.push('413', '415', '422');
  if ((operation.parameters ?? []).some((p: { in: string }) => p.in === 'query')) statuses.push('400');
  return statuses;
}

/** The camelCase plural paths are served for stock Ember adapters but not advertised: one route each. */
function withoutAliases(document: OpenAPIObject, defs: ResourceDefinition[]): void {
  const aliases = new Set(defs.map((def) => pluralAlias(def.name)).filter((alias) => alias !== undefined));
  for (const path of Object.keys(document.paths)) {
    if (path.split('/').some((segment) => aliases.has(segment))) delete document.paths[path];
  }
}

/**
 * The OpenAPI 3 document of every route the api serves: controllers as scanned by @nestjs/swagger, plus
 * what only the running application knows — each resource's record and body schemas and list filters
 * (from the resource registry), the error responses and the bearer-key security of non-public routes.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Wharf API')
    .setDescription(
      'Resources of the core and every loaded extension, and the webhook management API. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Errors are JSON:API error objects.',
    )
    .setVersion('v1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An API key.' }, SECURITY_SCHEME)
    .build();
  const document = SwaggerModule.createDocument(app, config);
  const registry = app.get(ResourceRegistry, { strict: false });
  const defs = registry.all();
  withoutAliases(document, defs);
  const components = (document.components ??= {});
  components.schemas = {
    ...SHARED_SCHEMAS,
    ...resourceComponents(defs, app.get(DataSource, { strict: false })),
    ...components.schemas,
  };
  components.responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, name]) => [
      name,
      {
        description: ERROR_TITLES[Number(status)][1],
        content: {
          'application/json': {
            schema: schemaRef('Errors'),
            ...(status === '422' ? { example: VALIDATION_EXAMPLE } : {}),
          },
        },
      },
    ]),
  );
  document.security = [{ [SECURITY_SCHEME]: [] }];

  const listOperations = new Map(defs.map((def) => [resourceOperationId('list', def.name), def]));
  for (const [path, , operation] of operations(document)) {
    const def = listOperations.get(operation.operationId);
    if (def) operation.parameters = [...(operation.parameters ?? []), ...listFilterParameters(def)];
    const isPublic = operation[OPENAPI_PUBLIC] === true;
    delete operation[OPENAPI_PUBLIC];
    if (isPublic) operation.security = [];
    for (const status of errorStatuses(path, operation, isPublic)) {
      operation.responses[status] ??= responseRef(ERROR_RESPONSES[status]);
    }
  }
  return document;
}

/** Serves the document at `/docs-json` and the Swagger UI at `/docs` (public, built on first request). */
export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup(DOCS_PATH, app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: DOCS_JSON_PATH,
    raw: ['json'],
    customSiteTitle: 'Wharf API',
  });
}
