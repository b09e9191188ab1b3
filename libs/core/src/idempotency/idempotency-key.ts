import { hash } from 'node:crypto';
import { ApiError } from '../common/api-error';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** 1–255 printable ASCII characters (a UUID, a hash, an order number and its attempt, …). */
const KEY = /^[\x20-\x7e]{1,255}$/;

/** The header's value, or a 400 naming the header when it is not a key. */
export function idempotencyKeyOf(header: string | string[]): string {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!KEY.test(value)) {
    throw ApiError.of(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      source: { header: 'Idempotency-Key' },
    });
  }
  return value;
}

/**
 * JSON with the members of every object in code-unit order of their names (RFC 8785's ordering; numbers and
 * strings as JSON.stringify writes them, which is what RFC 8785 prescribes): two bodies that differ only in
 * the order of their fields or their whitespace are the same request.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  let text: string;
  if (Array.isArray(value)) {
    text = '[';
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + canonicalJson(value[i]);
    return `${text}]`;
  }
  text = '{';
  for (const name of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[name];
    if (member === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(name)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}

/** The SHA-256 of a body's canonical JSON (no body: of the empty text). */
export function bodyHash(body: unknown): string {
  return hash('sha256', body === undefined ? '' : canonicalJson(body), 'hex');
}

/**
 * Headers that belong to one exchange, not to the answer: these are never stored, and a replay carries its
 * own (its request id, the caller's rate limit, CORS for its origin).
 */
const PER_EXCHANGE = new Set([
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'vary',
  'retry-after',
]);

/** The answer's own headers (content-type, location, …), as they are stored with the key. */
export function storedHeaders(
  headers: Record<string, string | number | string[] | undefined>,
): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || PER_EXCHANGE.has(name) || name.startsWith('access-control-')) continue;
    kept[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return kept;
}
