import { JsonSchema } from './dto-schema';
import { responseRef, type Operation } from './openapi-names';

// The headers of the document: components every response that carries one references, and those of an
// operation's own (success) responses.

/** Response headers, referenced from every response that carries them. */
export const HEADERS: Record<string, JsonSchema> = {
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
export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The header every authenticated POST takes (see idempotency.hook.ts). */
export const IDEMPOTENCY_KEY_PARAMETER = {
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
export const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': headerRef('XRateLimitLimit'),
  'x-ratelimit-remaining': headerRef('XRateLimitRemaining'),
};
/** The answer to a GET whose `If-None-Match` holds the current ETag. */
export const NOT_MODIFIED_RESPONSE = {
  description: 'The body is unchanged since the `ETag` sent as `If-None-Match`; none is sent.',
  headers: { etag: headerRef('ETag'), 'x-request-id': headerRef('XRequestId') },
};

/** Headers of an operation's own (success) responses; error responses carry theirs from components. */
export function documentHeaders(method: string, operation: Operation, isPublic: boolean): void {
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
