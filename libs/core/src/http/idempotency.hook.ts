import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { ScopedRequest } from './access.hook';
import {
  KeyedWrite,
  PinnedConnection,
  RequestPin,
  connectUnpinned,
  makePinnable,
  queryUnpinned,
} from '../database/pinned-connection';
import { prepared } from '../database/pool';
import { poolOf } from '../database/typeorm-pg';
import { ApiError } from '../common/api-error';
import { toErrorResponse } from '../common/error-response';
import { isResourceCreate } from './resource-routes';
import { RequestContext } from '../tenancy/request-context';
import {
  IDEMPOTENCY_HEADER,
  REPLAYED_HEADER,
  bodyHash,
  idempotencyKeyOf,
  storedHeaders,
} from '../idempotency/idempotency-key';
import { ANSWER_KEY, CLAIM_KEY, STORED_KEY } from '../idempotency/idempotency.sql';
import { IdempotencyPurge } from '../idempotency/idempotency-purge';

interface StoredAnswer {
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
interface KeyState extends KeyedWrite {
  pin: RequestPin;
  client?: PoolClient;
  replay?: StoredAnswer;
  settled?: boolean;
  ended?: boolean;
}

type KeyedRequest = ScopedRequest & { wharfIdempotency?: KeyState };

function reused(detail: string): ApiError {
  return ApiError.of(422, detail, { code: 'idempotency_key_reused', source: { header: 'Idempotency-Key' } });
}

/** The stored answer, when it answers this request; a 422 when the key was another request's. */
function answerOf(stored: StoredAnswer, route: string, hash: string): StoredAnswer {
  if (stored.route !== route) {
    throw reused(`This Idempotency-Key was used for ${stored.route}; use a new key for another request.`);
  }
  if (stored.body_hash !== hash) {
    throw reused('This Idempotency-Key was used with another body; use a new key for another request.');
  }
  return stored;
}

/** Ends the handler of a request whose key another one holds: its stored answer replaces whatever it sends. */
const superseded = () => ApiError.of(409, 'Another request with this Idempotency-Key answered first.');

/**
 * `Idempotency-Key` on every authenticated POST, whoever serves it (a resource's Fastify handler, a Nest
 * controller of an extension or of the management API). A key already stored is answered at once with its
 * answer and `Idempotent-Replayed: true`. Otherwise the key is claimed when the handler first needs the
 * database: in a transaction on a connection of its own, pinned for the rest of the request (every statement
 * of the handler runs in it), and the answer is stored with the key before it commits. A plain create
 * instead stores the key and its answer in its own one statement (resource.service.ts). Either way the
 * write and its key commit together or not at all. A concurrent repeat waits on the key's unique index for
 * the first to end, then gets its answer (or runs, if the first rolled back). A 4xx is stored (after rolling
 * back whatever the handler wrote); a 5xx is not. Call after configureAccess (the company scopes the key).
 */
export function configureIdempotency(app: NestFastifyApplication, ttlMs: number): void {
  const pool = poolOf(app.get(DataSource));
  makePinnable(pool);
  const fastify = app.getHttpAdapter().getInstance();
  const purge = new IdempotencyPurge(pool);
  fastify.addHook('onReady', async () => purge.start());
  fastify.addHook('onClose', async () => purge.stop());

  // Hooks of the POST routes only: no other route pays for a look at the header.
  fastify.addHook('onRoute', (route) => {
    if (!([] as string[]).concat(route.method).includes('POST')) return;
    const add = <T>(hooks: T | T[] | undefined, hook: T) => [
      ...(hooks === undefined ? [] : ([] as T[]).concat(hooks)),
      hook,
    ];
    route.preHandler = add(route.preHandler, replayOrPin as never);
    route.onSend = add(route.onSend, answered as never);
    route.onResponse = add(route.onResponse, abandoned as never);
  });

  async function replayOrPin(request: KeyedRequest, reply: FastifyReply) {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (request.method !== 'POST' || header === undefined || !request.wharfScope) return;
    const path = request.url.split('?')[0];
    const keyed: KeyedWrite = {
      company: request.wharfScope.companyUuid,
      key: idempotencyKeyOf(header),
      route: `POST ${path}`,
      hash: bodyHash(request.body),
      collection: path.replace(/\/$/, ''),
      ttlMs,
    };
    // A resource's create does nothing before its statement, which finds a stored key itself (taken); any
    // other handler might (a test send, a Redis call), so its key is looked up before it runs.
    if (!isResourceCreate(request.routeOptions.config)) {
      const stored = await storedAnswer(pool, keyed);
      if (stored) return replay(reply, answerOf(stored, keyed.route, keyed.hash));
    }
    const state: KeyState = {
      ...keyed,
      pin: new RequestPin(
        keyed,
        () => claim(state),
        () => taken(state),
      ),
    };
    request.wharfIdempotency = state;
    RequestContext.pinConnection(state.pin);
  }

  /** The first statement of the handler: claims the key, or finds the answer of the request that has it. */
  async function claim(state: KeyState): Promise<PinnedConnection> {
    const client = await connectUnpinned(pool);
    try {
      await client.query('BEGIN');
      const claimed = await client.query(
        prepared(CLAIM_KEY, [state.company, state.key, state.route, state.hash, null, null, null, ttlMs]),
      );
      if (claimed.rowCount) {
        state.client = client;
        return new PinnedConnection(client);
      }
      const stored = (await client.query(prepared(STORED_KEY, [state.company, state.key]))).rows[0] as
        StoredAnswer | undefined;
      await client.query('ROLLBACK');
      client.release();
      supersede(state, stored);
    } catch (error) {
      if (!state.client && !state.settled) client.release(error as Error);
      throw error;
    }
  }

  /** A plain create found its key stored: the answer of the request that stored it, or 'retry' when expired. */
  async function taken(state: KeyState): Promise<'retry'> {
    const stored = await storedAnswer(pool, state);
    if (!stored) return 'retry';
    supersede(state, stored);
  }

  function supersede(state: KeyState, stored: StoredAnswer | undefined): never {
    state.settled = true;
    if (!stored) {
      throw ApiError.retryAfter(409, 1, 'The Idempotency-Key is in use; retry.', {
        code: 'idempotency_key_in_use',
      });
    }
    state.replay = answerOf(stored, state.route, state.hash);
    throw superseded();
  }

  async function answered(request: KeyedRequest, reply: FastifyReply, payload: unknown) {
    const state = request.wharfIdempotency;
    if (!state || state.ended) return payload;
    state.ended = true;
    RequestContext.pinConnection(undefined);
    if (state.replay) return replay(reply, state.replay, true);
    if (state.pin.storedInStatement || state.settled) return payload;
    return state.client ? end(state, state.client, request, reply, payload) : store(state, reply, payload);
  }

  // A request that never reached onSend (its client went away mid-handler) must not keep its transaction.
  async function abandoned(request: KeyedRequest) {
    const state = request.wharfIdempotency;
    if (!state?.client || state.ended) return;
    state.ended = true;
    await state.client.query('ROLLBACK').then(
      () => state.client!.release(),
      (error: Error) => state.client!.release(error),
    );
  }

  /**
   * A request that never needed the database (a refusal of its body, mostly): the answer stored with its
   * key, if a request that got there first stored one (a create does not look before it runs), else its own.
   */
  async function store(state: KeyState, reply: FastifyReply, payload: unknown) {
    const body = bodyText(payload);
    if (reply.statusCode >= 500 || body === null) return payload;
    const stored = await storedAnswer(pool, state).catch(() => undefined);
    if (stored) {
      try {
        return replay(reply, answerOf(stored, state.route, state.hash), true);
      } catch (error) {
        const answer = toErrorResponse(error, '');
        reply.removeHeader('location');
        void reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8');
        return JSON.stringify(answer.body);
      }
    }
    const headers = JSON.stringify(storedHeaders(reply.getHeaders()));
    const { company, key, route, hash } = state;
    await queryUnpinned(
      pool,
      prepared(CLAIM_KEY, [company, key, route, hash, reply.statusCode, headers, body, ttlMs]),
    ).catch(() => undefined);
    return payload;
  }

  async function end(
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
        await client.query(prepared(CLAIM_KEY, [company, key, route, hash, status, headers, body, ttlMs]));
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
      const answer = toErrorResponse(error, String(request.id));
      void reply.code(answer.status).headers(answer.headers).type('application/json; charset=utf-8');
      reply.removeHeader('location');
      return JSON.stringify(answer.body);
    }
  }
}

/** A body as it is stored with its key; null for one that is neither text nor bytes (a stream). */
function bodyText(payload: unknown): string | null {
  return typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
}

async function storedAnswer(pool: Pool, { company, key }: KeyedWrite): Promise<StoredAnswer | undefined> {
  return (await queryUnpinned(pool, prepared(STORED_KEY, [company, key]))).rows[0] as
    StoredAnswer | undefined;
}

/** Sends a stored answer: its status, headers and body as they were, marked replayed. */
function replay(reply: FastifyReply, stored: StoredAnswer, inOnSend = false) {
  for (const name of Object.keys(reply.getHeaders())) {
    if (name === 'location' || name === 'content-type') reply.removeHeader(name);
  }
  void reply.code(stored.status).headers(stored.headers).header(REPLAYED_HEADER, 'true');
  return inOnSend ? (stored.body ?? '') : reply.send(stored.body ?? '');
}
