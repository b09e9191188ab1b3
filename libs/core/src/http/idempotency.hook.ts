import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import { DataSource } from 'typeorm';
import {
  KeyedWrite,
  PinnedConnection,
  RequestPin,
  connectUnpinned,
  makePinnable,
} from '../database/pinned-connection';
import { prepared } from '../database/pool';
import { poolOf } from '../database/typeorm-pg';
import { ApiError } from '../common/api-error';
import { isResourceCreate } from './resource-routes';
import { RequestContext } from '../tenancy/request-context';
import { IDEMPOTENCY_HEADER, bodyHash, idempotencyKeyOf } from '../idempotency/idempotency-key';
import { CLAIM_KEY, STORED_KEY } from '../idempotency/idempotency.sql';
import { IdempotencyPurge } from '../idempotency/idempotency-purge';
import { ROUTE_ACCESS } from './access.hook';
import { abandoned, answered } from './idempotency-answer';
import {
  KeyState,
  KeyStore,
  KeyedRequest,
  StoredAnswer,
  answerOf,
  replay,
  storedAnswer,
} from './idempotency-state';
import { SENT, type RouteFacts, type StageFor } from './pipeline-stage';

/** The stages of a keyed POST: `idempotency` before the handler, `idempotency-answer`, `idempotency-release`. */
export interface IdempotencyStages {
  replayOrPin: StageFor<'preHandler'>;
  answered: StageFor<'onSend'>;
  abandoned: StageFor<'onResponse'>;
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
 * back whatever the handler wrote); a 5xx is not. The stages run after authentication (the company scopes
 * the key), on authenticated POST routes only: no other route pays for a look at the header.
 */
export function configureIdempotency(app: NestFastifyApplication, ttlMs: number): IdempotencyStages {
  const pool = poolOf(app.get(DataSource));
  makePinnable(pool);
  const fastify = app.getHttpAdapter().getInstance();
  const purge = new IdempotencyPurge(pool);
  fastify.addHook('onReady', async () => purge.start());
  fastify.addHook('onClose', async () => purge.stop());
  const keys: KeyStore = { pool, ttlMs };
  const keyed = ({ methods, config }: RouteFacts) =>
    methods.includes('POST') && (config[ROUTE_ACCESS] === 'key' || config[ROUTE_ACCESS] === 'keys');
  // Requests without a key (most) go through these stages without waiting for a promise.
  return {
    replayOrPin: (route) => {
      if (!keyed(route)) return undefined;
      // A resource's create does nothing before its statement, which finds a stored key itself (taken); any
      // other handler might (a test send, a Redis call), so its key is looked up before it runs.
      const lookFirst = !isResourceCreate(route.config);
      return (request: KeyedRequest, reply) => {
        const header = request.headers[IDEMPOTENCY_HEADER];
        if (request.method !== 'POST' || header === undefined || !request.wharfScope) return undefined;
        return replayOrPin(keys, lookFirst, header, request, reply);
      };
    },
    answered: (route) =>
      keyed(route)
        ? (request: KeyedRequest, reply, payload) =>
            request.wharfIdempotency ? answered(keys, request, reply, payload) : payload
        : undefined,
    abandoned: (route) =>
      keyed(route)
        ? (request: KeyedRequest) => (request.wharfIdempotency?.client ? abandoned(request) : undefined)
        : undefined,
  };
}

/** Stage `idempotency`: a stored answer at once, or the key's state, pinned for the handler's statements. */
async function replayOrPin(
  keys: KeyStore,
  lookFirst: boolean,
  header: string | string[],
  request: KeyedRequest,
  reply: FastifyReply,
): Promise<typeof SENT | undefined> {
  const path = request.url.split('?')[0];
  const keyed: KeyedWrite = {
    company: request.wharfScope!.companyUuid,
    key: idempotencyKeyOf(header),
    route: `POST ${path}`,
    hash: bodyHash(request.body),
    collection: path.replace(/\/$/, ''),
    ttlMs: keys.ttlMs,
  };
  if (lookFirst) {
    const stored = await storedAnswer(keys.pool, keyed);
    if (stored) {
      void reply.send(replay(reply, answerOf(stored, keyed.route, keyed.hash)));
      return SENT;
    }
  }
  const state: KeyState = {
    ...keyed,
    pin: new RequestPin(
      keyed,
      () => claim(keys, state),
      () => taken(keys, state),
    ),
  };
  request.wharfIdempotency = state;
  RequestContext.pinConnection(state.pin);
  return undefined;
}

/** The first statement of the handler: claims the key, or finds the answer of the request that has it. */
async function claim(keys: KeyStore, state: KeyState): Promise<PinnedConnection> {
  const client = await connectUnpinned(keys.pool);
  try {
    await client.query('BEGIN');
    const claimed = await client.query(
      prepared(CLAIM_KEY, [state.company, state.key, state.route, state.hash, null, null, null, keys.ttlMs]),
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
async function taken(keys: KeyStore, state: KeyState): Promise<'retry'> {
  const stored = await storedAnswer(keys.pool, state);
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
