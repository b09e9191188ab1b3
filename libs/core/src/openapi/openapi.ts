import { INestApplication } from '@nestjs/common';
import { OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { OPENAPI_KEYS_ONLY } from '../access/access.decorator';
import { OPENAPI_PUBLIC } from '../access/public.decorator';
import { EXACT_TOTAL_LIMIT } from '../resources/list-query';
import { pluralAlias, pluralPath } from '../resources/naming';
import { ResourceDefinition } from '../resources/resource-definition';
import { ResourceRegistry } from '../resources/resource-registry';
import { JsonSchema } from './dto-schema';
import { ERROR_RESPONSES, ERROR_SCHEMAS, errorResponses, errorStatuses } from './openapi-errors';
import {
  HEADERS,
  IDEMPOTENCY_KEY_PARAMETER,
  NOT_MODIFIED_RESPONSE,
  documentHeaders,
} from './openapi-headers';
import { OPENAPI_ERRORS, resourceOperationId, responseRef, type Operation } from './openapi-names';
import { describePermission, markPermissions } from './openapi-permissions';
import { SECURITY, documentConfig } from './openapi-security';
import { listFilterParameters, resourceComponents } from './resource-components';

export const DOCS_PATH = 'docs';
export const DOCS_JSON_PATH = 'docs-json';

/** Descriptions of the tags that are not a resource's plural path. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Whether the api can reach its backing services.',
  'api-keys': 'The company’s API keys.',
  'webhook-endpoints': 'Where events are delivered, and the actions on one endpoint (secret, test, recover).',
  'webhook-request-logs': 'One row per delivery attempt, with the answer received.',
  'webhook-events':
    'The catalog of events an endpoint can subscribe to, and a test send of one to each (trigger).',
  'listen-sessions': 'wharf listen: deliveries streamed to the CLI, which forwards them to a local URL.',
  events:
    'What happened in the company: its events while they are kept, and what became of their deliveries.',
  'webhook-sender-addresses': 'The addresses deliveries come from.',
  'webhook-activity': 'Delivery at a glance: attempts per hour or minute, and a live stream of the log.',
  'portal-sessions': 'Links that open a company’s console inside the platform’s app (the company portal).',
  session: 'Who the caller is: an API key, or a portal session and its limits.',
  permissions: 'The permissions API keys and portal sessions may hold.',
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
      current_page: { type: ['integer', 'null'], description: 'null on a page reached by `cursor`.' },
      last_page: { type: 'integer' },
      from: { type: ['integer', 'null'] },
      to: { type: ['integer', 'null'] },
      next_cursor: {
        type: ['string', 'null'],
        description: 'Pass as `cursor` (with the same `sort`) for the next page; null on the last page.',
      },
    },
    required: ['total', 'total_exact', 'per_page', 'current_page', 'last_page', 'from', 'to', 'next_cursor'],
  },
  ...ERROR_SCHEMAS,
};

/** Every operation of the document, with its path and method. */
function operations(document: OpenAPIObject): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
      .map(([method, operation]): [string, string, Operation] => [path, method, operation]),
  );
}

/** The camelCase plural paths are served for stock Ember adapters but not advertised: one route each. */
function withoutAliases(document: OpenAPIObject, defs: ResourceDefinition[]): void {
  const aliases = new Set(defs.map((def) => pluralAlias(def.name)).filter((alias) => alias !== undefined));
  for (const path of Object.keys(document.paths)) {
    if (path.split('/').some((segment) => aliases.has(segment))) delete document.paths[path];
  }
}

/** Drops the schemas no operation uses (the bodies of a read-only resource's absent writes). */
function withoutUnusedSchemas(document: OpenAPIObject): void {
  const schemas = document.components!.schemas!;
  const refs = (value: unknown) =>
    [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
  const used = new Set<string>();
  const pending = refs({ paths: document.paths, responses: document.components!.responses });
  while (pending.length) {
    const name = pending.pop()!;
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refs(schemas[name]));
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/**
 * What only the running application knows of one operation: a resource list's filters, the Idempotency-Key
 * of an authenticated POST, whether it is public, its error responses and headers.
 */
function documentOperation(
  path: string,
  method: string,
  operation: Operation,
  list?: ResourceDefinition,
): void {
  if (list) operation.parameters = [...(operation.parameters ?? []), ...listFilterParameters(list)];
  const isPublic = operation[OPENAPI_PUBLIC] === true;
  if (!isPublic) describePermission(operation);
  if (isPublic) operation.security = [];
  else if (method === 'post') {
    operation.parameters = [
      ...(operation.parameters ?? []),
      { $ref: '#/components/parameters/IdempotencyKey' },
    ];
  }
  for (const status of errorStatuses(path, method, operation, isPublic)) {
    operation.responses[status] ??= responseRef(ERROR_RESPONSES[status][0]);
  }
  documentHeaders(method, operation, isPublic);
  delete operation[OPENAPI_PUBLIC];
  delete operation[OPENAPI_KEYS_ONLY];
  delete operation[OPENAPI_ERRORS];
}

/** The document's tags, sorted, each described (a resource's plural path by its resource). */
function documentTags(tags: Set<string>, defs: ResourceDefinition[]): OpenAPIObject['tags'] {
  const resourceTags = new Map(defs.map((def) => [pluralPath(def.name), def.name]));
  return [...tags].sort().map((name) => ({
    name,
    description:
      TAG_DESCRIPTIONS[name] ??
      (resourceTags.has(name) ? `The ${resourceTags.get(name)} records of the company.` : name),
  }));
}

/**
 * The OpenAPI 3.1 document of every route the api serves: controllers as scanned by @nestjs/swagger, plus
 * what only the running application knows — each resource's record and body schemas and list filters
 * (from the resource registry), the error responses, headers and the bearer-key security of non-public
 * routes.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  markPermissions(app);
  const document = SwaggerModule.createDocument(app, documentConfig());
  const defs = app.get(ResourceRegistry, { strict: false }).all();
  withoutAliases(document, defs);
  const components = (document.components ??= {});
  components.schemas = {
    ...SHARED_SCHEMAS,
    ...resourceComponents(defs, app.get(DataSource, { strict: false })),
    ...components.schemas,
  };
  components.headers = HEADERS;
  components.parameters = { ...components.parameters, IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER as never };
  components.responses = { NotModified: NOT_MODIFIED_RESPONSE, ...errorResponses() };
  document.security = SECURITY;
  const listOperations = new Map(defs.map((def) => [resourceOperationId('list', def.name), def]));
  const tags = new Set<string>();
  for (const [path, method, operation] of operations(document)) {
    documentOperation(path, method, operation, listOperations.get(operation.operationId));
    for (const tag of operation.tags ?? []) tags.add(tag);
  }
  withoutUnusedSchemas(document);
  document.tags = documentTags(tags, defs);
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
