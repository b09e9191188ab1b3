import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PoolClient } from 'pg';
import { queryUnpinned } from '../database/pinned-connection';
import { prepared } from '../database/pool';
import { toErrorResponse } from '../common/error-response';
import { RequestContext } from '../tenancy/request-context';
import { storedHeaders } from '../idempotency/idempotency-key';
import { ANSWER_KEY, CLAIM_KEY } from '../idempotency/idempotency.sql';
import {
  KeyState,
  KeyStore,
  KeyedRequest,
  answerOf,
  bodyText,
  replay,
  storedAnswer,
} from './idempotency-state';

/**
 * Stage `idempotency-answer`: the answer of a keyed request is stored with its key (committed with what
 * the handler wrote), or, when another request with the key answered first, replaced by that answer.
 */
export async function answered(
  keys: KeyStore,
  request: KeyedRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const state = request.wharfIdempotency;
  if (!state || state.ended) return payload;
  state.ended = true;
  RequestContext.pinConnection(undefined);
  if (state.replay) return replay(reply, state.replay);
  if (state.pin.storedInStatement || state.settled) return payload;
  return state.client
    ? end(keys, state, state.client, request, reply, payload)
    : store(keys, state, reply, payload);
}

/**
 * Stage `idempotency-release`: a request that never reached onSend (its client went away mid-handler)
 * must not keep its transaction.
 */
export async function abandoned(request: KeyedRequest): Promise<void> {
  const state = request.wharfIdempotency;
  if (!state?.client || state.ended) return;
  state.ended = true;
  await state.client.query('ROLLBACK').then(
    () => state.client!.release(),
    (error: Error) => state.client!.release(error),
  );
}

/** An error's answer in place of the one on its way out (`Location` of a create that was not made goes). */
function answerError(reply: FastifyReply, error: unknown, requestId: string): string {
  const answer = toErrorResponse(error, requestId);
  reply.removeHeader('location');
  void reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8');
  return JSON.stringify(answer.body);
}

/**
 * A request that never needed the database (a refusal of its body, mostly): the answer stored with its
 * key, if a request that got there first stored one (a create does not look before it runs), else its own.
 */
async function store(keys: KeyStore, state: KeyState, reply: FastifyReply, payload: unknown) {
  const body = bodyText(payload);
  if (reply.statusCode >= 500 || body === null) return payload;
  const stored = await storedAnswer(keys.pool, state).catch(() => undefined);
  if (stored) {
    try {
      return replay(reply, answerOf(stored, state.route, state.hash));
    } catch (error) {
      return answerError(reply, error, '');
    }
  }
  const headers = JSON.stringify(storedHeaders(reply.getHeaders()));
  const { company, key, route, hash } = state;
  await queryUnpinned(
    keys.pool,
    prepared(CLAIM_KEY, [company, key, route, hash, reply.statusCode, headers, body, keys.ttlMs]),
  ).catch(() => undefined);
  return payload;
}

/** Ends the transaction that claimed the key: the answer stored and committed, or all of it rolled back. */
async function end(
  keys: KeyStore,
  state: KeyState,
  client: PoolClient,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
) {
  const status = reply.statusCode;
  const { company, key, route, hash } = state;
  const body = bodyText(payload);
  try {
    if (status >= 500 || body === null) {
      await client.query('ROLLBACK');
    } else if (status >= 400) {
      // A refused request changes nothing: what the handler wrote goes, the refusal is kept.
      await client.query('ROLLBACK');
      const headers = JSON.stringify(storedHeaders(reply.getHeaders()));
      await client.query(prepared(CLAIM_KEY, [company, key, route, hash, status, headers, body, keys.ttlMs]));
    } else {
      const headers = JSON.stringify(storedHeaders(reply.getHeaders()));
      await client.query(prepared(ANSWER_KEY, [company, key, status, headers, body]));
      await client.query('COMMIT');
    }
    client.release();
    return payload;
  } catch (error) {
    // Not committed (or not known to be): the client must not be told it was.
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(error as Error);
    return answerError(reply, error, String(request.id));
  }
}
