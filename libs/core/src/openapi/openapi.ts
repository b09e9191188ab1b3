import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { OPENAPI_KEYS_ONLY } from '../access/access.decorator';
import { OPENAPI_PUBLIC } from '../access/public.decorator';
import { PORTAL_COOKIE } from '../access/authenticator';
import { errorObject } from '../common/api-error';
import { BODY_LIMIT, byteSize } from '../common/body-size';
import { attributePointer } from '../common/pointer';
import { EXACT_TOTAL_LIMIT } from '../resources/list-query';
import { pluralAlias, pluralPath } from '../resources/naming';
import { ResourceDefinition } from '../resources/resource-definition';
import { ResourceRegistry } from '../resources/resource-registry';
import { JsonSchema } from './dto-schema';
import { OPENAPI_ERRORS, resourceOperationId, responseRef, schemaRef } from './openapi-names';
import { listFilterParameters, resourceComponents } from './resource-components';

export const DOCS_PATH = 'docs';
export const DOCS_JSON_PATH = 'docs-json';
const SECURITY_SCHEME = 'api_key';
const PORTAL_SCHEME = 'portal_session';

/** Error responses, by status: component name and when it happens. */
const ERROR_RESPONSES: Record<string, [name: string, description: string]> = {
  '400': [
    'BadRequest',
    'A query parameter is malformed or unknown (`source.parameter` names it), or the body is not valid JSON.',
  ],
  '401': ['Unauthorized', 'No API key, or one that is unknown or revoked.'],
  '403': [
    'Forbidden',
    'A portal session may not do this: a write of a read-only session, a write without the `x-wharf-portal: 1` ' +
      'header, or a route for API keys only.',
  ],
  '404': ['NotFound', 'No record with this uuid in the company of the key.'],
  '409': [
    'Conflict',
    'A unique value is taken, or the record is still in use (a driver on active orders), or a stored ' +
      'secret cannot be opened with the configured keys.',
  ],
  '413': ['PayloadTooLarge', `The body is larger than ${byteSize(BODY_LIMIT)}.`],
  '415': ['UnsupportedMediaType', 'A body was sent that is not JSON.'],
  '422': [
    'UnprocessableEntity',
    'The body is JSON but not acceptable: each error points at its field (`source.pointer`).',
  ],
  '429': [
    'TooManyRequests',
    'The key used up its requests of this minute; retry after `Retry-After` seconds.',
  ],
  '500': ['InternalError', 'A fault of the api; the detail quotes the request id to report.'],
  '503': [
    'ServiceUnavailable',
    'PostgreSQL or Redis is unreachable for now; nothing was changed, retry after `Retry-After` seconds.',
  ],
};

/** Response headers, referenced from every response that carries them. */
const HEADERS: Record<string, JsonSchema> = {
  XRequestId: {
    description:
      'The request’s id: the client’s `x-request-id` when it sent a sane one, otherwise a new uuid.',
    schema: { type: 'string' },
  },
  XRateLimitLimit: { description: 'Requests the key may make per minute.', schema: { type: 'integer' } },
  XRateLimitRemaining: { description: 'Requests left to the key this minute.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  WwwAuthenticate: { description: '`Bearer`', schema: { type: 'string' } },
  Location: { description: 'The created record’s URL (its path on this api).', schema: { type: 'string' } },
  IdempotentReplayed: {
    description:
      '`true` on the stored answer of an earlier request with the same `Idempotency-Key` (nothing was done again).',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description:
      'A strong validator of the body; send it as `If-None-Match` to get a 304 while it is unchanged.',
    schema: { type: 'string' },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The header every authenticated POST takes (see idempotency.hook.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: its answer (status, headers, body; a 4xx too, never a 5xx) is stored ' +
    'with the key for `IDEMPOTENCY_TTL` (24 h) and given back, with `Idempotent-Replayed: true`, to any ' +
    'repeat with the same key, without doing anything again. A repeat while the first is running waits for ' +
    'its answer. The same key with another body or on another route is a 422 `idempotency_key_reused`. ' +
    'Keys are scoped to the company of the API key.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};
const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': headerRef('XRateLimitLimit'),
  'x-ratelimit-remaining': headerRef('XRateLimitRemaining'),
};
const ERROR_HEADERS: Record<string, Record<string, object>> = {
  '401': { 'www-authenticate': headerRef('WwwAuthenticate') },
  '404': RATE_LIMIT_HEADERS,
  '409': RATE_LIMIT_HEADERS,
  '422': RATE_LIMIT_HEADERS,
  '429': { 'retry-after': headerRef('RetryAfter'), ...RATE_LIMIT_HEADERS },
  '503': { 'retry-after': headerRef('RetryAfter') },
};

/** Descriptions of the tags that are not a resource's plural path. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  health: 'Whether the api can reach its backing services.',
  'api-keys': 'The company’s API keys.',
  'webhook-endpoints': 'Where events are delivered, and the actions on one endpoint (secret, test, recover).',
  'webhook-request-logs': 'One row per delivery attempt, with the answer received.',
  'webhook-events': 'The catalog of events an endpoint can subscribe to.',
  events:
    'What happened in the company: its events while they are kept, and what became of their deliveries.',
  'webhook-sender-addresses': 'The addresses deliveries come from.',
  'webhook-activity': 'Delivery at a glance: attempts per hour or minute, and a live stream of the log.',
  'portal-sessions': 'Links that open a company’s console inside the platform’s app (the company portal).',
  session: 'Who the caller is: an API key, or a portal session and its limits.',
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
          header: { type: 'string', description: 'The request header at fault.', example: 'Idempotency-Key' },
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
function errorStatuses(path: string, method: string, operation: Operation, isPublic: boolean): string[] {
  // Every route refuses a query parameter holding NUL or a lone surrogate (400) and needs PostgreSQL (503).
  const statuses = ['400', '500', '503'];
  if (!isPublic) statuses.push('401', '429');
  // A portal session's cookie: 403 on writes it may not make and on the routes of API keys only.
  if (!isPublic && (method !== 'get' || operation[OPENAPI_KEYS_ONLY] === true)) statuses.push('403');
  if (path.includes('{')) statuses.push('404');
  if (['post', 'put', 'patch'].includes(method)) statuses.push('413', '415');
  if (operation.requestBody || (method === 'post' && !isPublic)) statuses.push('422');
  if (/^(create|update|patch|delete)/.test(operation.operationId)) statuses.push('409');
  return [...statuses, ...((operation[OPENAPI_ERRORS] as number[] | undefined) ?? []).map(String)];
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

/** Headers of an operation's own (success) responses; error responses carry theirs from components. */
function documentHeaders(method: string, operation: Operation, isPublic: boolean): void {
  for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
    if (response.$ref || !status.startsWith('2')) continue;
    response.headers = {
      'x-request-id': headerRef('XRequestId'),
      ...(isPublic ? {} : RATE_LIMIT_HEADERS),
      ...(status === '201' ? { location: headerRef('Location') } : {}),
      ...(method === 'post' && !isPublic ? { 'idempotent-replayed': headerRef('IdempotentReplayed') } : {}),
      // A stream has no ETag: it is never complete.
      ...(method === 'get' && status === '200' && !response.content?.['text/event-stream']
        ? { etag: headerRef('ETag') }
        : {}),
      ...response.headers,
    };
  }
  if (method === 'get' && !operation.responses['200']?.content?.['text/event-stream'])
    operation.responses['304'] ??= responseRef('NotModified');
}

/**
 * The OpenAPI 3.1 document of every route the api serves: controllers as scanned by @nestjs/swagger, plus
 * what only the running application knows — each resource's record and body schemas and list filters
 * (from the resource registry), the error responses, headers and the bearer-key security of non-public
 * routes.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Wharf API')
    .setDescription(
      'Resources of the core and every loaded extension, and the webhook management API. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Errors are JSON:API error objects.',
    )
    .setVersion('v1')
    .addServer('/', 'The api that serves this document.')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API key (opaque, `wharf_…`).' },
      SECURITY_SCHEME,
    )
    .build();
  // Keys are opaque, not JWTs (the builder fills bearerFormat in).
  delete (config.components?.securitySchemes?.[SECURITY_SCHEME] as { bearerFormat?: string }).bearerFormat;
  ((config.components ??= {}).securitySchemes ??= {})[PORTAL_SCHEME] = {
    type: 'apiKey',
    in: 'cookie',
    name: PORTAL_COOKIE,
    description:
      'A portal session: the HttpOnly cookie set by `POST /int/v1/portal-sessions/exchange` (see docs/portal.md).',
  };
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
  components.headers = HEADERS;
  components.parameters = { ...components.parameters, IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER as never };
  components.responses = {
    NotModified: {
      description: 'The body is unchanged since the `ETag` sent as `If-None-Match`; none is sent.',
      headers: { etag: headerRef('ETag'), 'x-request-id': headerRef('XRequestId') },
    },
    ...Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, [name, description]]) => [
        name,
        {
          description,
          headers: { 'x-request-id': headerRef('XRequestId'), ...ERROR_HEADERS[status] },
          content: {
            'application/json': {
              schema: schemaRef('Errors'),
              ...(status === '422' ? { example: VALIDATION_EXAMPLE } : {}),
            },
          },
        },
      ]),
    ),
  };
  document.security = [{ [SECURITY_SCHEME]: [] }, { [PORTAL_SCHEME]: [] }];

  const listOperations = new Map(defs.map((def) => [resourceOperationId('list', def.name), def]));
  const tags = new Set<string>();
  for (const [path, method, operation] of operations(document)) {
    const def = listOperations.get(operation.operationId);
    if (def) operation.parameters = [...(operation.parameters ?? []), ...listFilterParameters(def)];
    const isPublic = operation[OPENAPI_PUBLIC] === true;
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
    for (const tag of operation.tags ?? []) tags.add(tag);
  }
  withoutUnusedSchemas(document);
  const resourceTags = new Map(defs.map((def) => [pluralPath(def.name), def.name]));
  document.tags = [...tags].sort().map((name) => ({
    name,
    description:
      TAG_DESCRIPTIONS[name] ??
      (resourceTags.has(name) ? `The ${resourceTags.get(name)} records of the company.` : name),
  }));
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
