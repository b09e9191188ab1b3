import type { FastifyReply } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import type { ScopedRequest } from './access.hook';
import { KeyedWrite, RequestPin, queryUnpinned } from '../database/pinned-connection';
import { prepared } from '../database/pool';
import { ApiError } from '../common/api-error';
import { REPLAYED_HEADER } from '../idempotency/idempotency-key';
import { STORED_KEY } from '../idempotency/idempotency.sql';

/** Where the idempotency stages keep keys: the pool, and how long a key lives. */
export interface KeyStore {
  pool: Pool;
  ttlMs: number;
}

export interface StoredAnswer {
  route: string;
  body_hash: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: string | null;
}

/**
 * A keyed request whose key was not stored when it arrived. `client`: the connection whose transaction
 * claimed the key (ended when the request is answered); `replay`: the answer of a request with the same key
 * that got there first; `settled`: nothing left to store (the statement of a plain create stored it, or the
 * key turned out to be another request's).
 */
export interface KeyState extends KeyedWrite {
  pin: RequestPin;
  client?: PoolClient;
  replay?: StoredAnswer;
  settled?: boolean;
  ended?: boolean;
}

export type KeyedRequest = ScopedRequest & { wharfIdempotency?: KeyState };

function reused(detail: string): ApiError {
  return ApiError.of(422, detail, { code: 'idempotency_key_reused', source: { header: 'Idempotency-Key' } });
}

/** The stored answer, when it answers this request; a 422 when the key was another request's. */
export function answerOf(stored: StoredAnswer, route: string, hash: string): StoredAnswer {
  if (stored.route !== route) {
    throw reused(`This Idempotency-Key was used for ${stored.route}; use a new key for another request.`);
  }
  if (stored.body_hash !== hash) {
    throw reused('This Idempotency-Key was used with another body; use a new key for another request.');
  }
  return stored;
}

/** A body as it is stored with its key; null for one that is neither text nor bytes (a stream). */
export function bodyText(payload: unknown): string | null {
  return typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
}

export async function storedAnswer(
  pool: Pool,
  { company, key }: KeyedWrite,
): Promise<StoredAnswer | undefined> {
  return (await queryUnpinned(pool, prepared(STORED_KEY, [company, key]))).rows[0] as
    StoredAnswer | undefined;
}

/** Sets a stored answer's status and headers as they were, marked replayed; returns its body. */
export function replay(reply: FastifyReply, stored: StoredAnswer): string {
  for (const name of Object.keys(reply.getHeaders())) {
    if (name === 'location' || name === 'content-type') reply.removeHeader(name);
  }
  void reply.code(stored.status).headers(stored.headers).header(REPLAYED_HEADER, 'true');
  return stored.body ?? '';
}
