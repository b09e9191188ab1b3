import { OPENAPI_KEYS_ONLY } from '../access/access.decorator';
import { errorObject } from '../common/api-error';
import { BODY_LIMIT, byteSize } from '../common/body-size';
import { attributePointer } from '../common/pointer';
import { JsonSchema } from './dto-schema';
import { OPENAPI_ERRORS, schemaRef, type Operation } from './openapi-names';
import { RATE_LIMIT_HEADERS, headerRef } from './openapi-headers';

// The error responses of the document: one shared response per status, and which an operation can give.

/** Error responses, by status: component name and when it happens. */
export const ERROR_RESPONSES: Record<string, [name: string, description: string]> = {
  '400': [
    'BadRequest',
    'A query parameter is malformed or unknown (`source.parameter` names it), or the body is not valid JSON.',
  ],
  '401': ['Unauthorized', 'No API key, or one that is unknown or revoked.'],
  '403': [
    'Forbidden',
    'The caller may not do this: it lacks the permission the operation names (`insufficient_permission`, ' +
      '`meta.permission`), or as a portal session: a write of a read-only session, a write without the ' +
      '`x-wharf-portal: 1` header, or a route for API keys only.',
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

const ERROR_HEADERS: Record<string, Record<string, object>> = {
  '401': { 'www-authenticate': headerRef('WwwAuthenticate') },
  '404': RATE_LIMIT_HEADERS,
  '409': RATE_LIMIT_HEADERS,
  '422': RATE_LIMIT_HEADERS,
  '429': { 'retry-after': headerRef('RetryAfter'), ...RATE_LIMIT_HEADERS },
  '503': { 'retry-after': headerRef('RetryAfter') },
};

/** The schemas of an error body: JSON:API error objects. */
export const ERROR_SCHEMAS: Record<string, JsonSchema> = {
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

/** The shared error responses, by component name (`BadRequest`, …). */
export function errorResponses() {
  return Object.fromEntries(
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
  );
}

/** The error responses an operation can give, from what it takes. */
export function errorStatuses(
  path: string,
  method: string,
  operation: Operation,
  isPublic: boolean,
): string[] {
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
