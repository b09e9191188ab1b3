import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { ScopedRequest } from '../auth/access.hook';
import { PinnedConnection, makePinnable } from '../database/pinned-connection';
import { prepared } from '../database/pool';
import { poolOf } from '../database/typeorm-pg';
import { ApiError } from '../http/api-error';
import { toErrorResponse } from '../http/error-response';
import { RequestContext } from '../tenancy/request-context';
import {
  IDEMPOTENCY_HEADER,
  REPLAYED_HEADER,
  bodyHash,
  idempotencyKeyOf,
  storedHeaders,
} from './idempotency-key';
import { ANSWER_KEY, CLAIM_KEY, STORED_KEY } from './idempotency.sql';
import { IdempotencyPurge } from './idempotency-purge';

/** A keyed request that claimed its key: its transaction, open on `client`, ends when it is answered. */
interface Claim {
  client: PoolClient;
  company: string;
  key: string;
  route: string;
  hash: string;
  ended: boolean;
}

type KeyedRequest = ScopedRequest & { wharfIdempotency?: Claim };

interface StoredAnswer {
  route: string;
  body_hash: string;
  status: number;
  headers: Record<string, string | string[]>;
  body: string | null;
}

function reused(detail: string): ApiError {
  return ApiError.of(422, detail, { code: 'idempotency_key_reused', source: { header: 'Idempotency-Key' } });
}

/**
 * `Idempotency-Key` on every authenticated POST, whoever serves it (a resource's Fastify handler, a Nest
 * controller of an extension or of the management API): the key is claimed in a transaction on a connection
 * of its own, that connection is pinned for the request (every statement of the handler runs in that
 * transaction), and the answer is stored with the key before it commits. So the write and its key commit
 * together or not at all. A repeat gets the stored answer with `Idempotent-Replayed: true`; a concurrent
 * repeat waits on the key's unique index for the first to end, then gets its answer (or runs, if the first
 * rolled back). A 4xx is stored (after rolling back whatever the handler wrote); a 5xx is not. Call after
 * configureAccess (the company scopes the key).
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
    route.preHandler = add(route.preHandler, claimOrReplay as never);
    route.onSend = add(route.onSend, answered as never);
    route.onResponse = add(route.onResponse, abandoned as never);
  });

  async function claimOrReplay(request: KeyedRequest, reply: FastifyReply) {
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (request.method !== 'POST' || header === undefined || !request.wharfScope) return;
    const key = idempotencyKeyOf(header);
    const company = request.wharfScope.companyUuid;
    const route = `POST ${request.url.split('?')[0]}`;
    const hash = bodyHash(request.body);
    const client = await pool.connect();
    let stored: StoredAnswer | undefined;
    try {
      await client.query('BEGIN');
      const claim = await client.query(
        prepared(CLAIM_KEY, [company, key, route, hash, null, null, null, ttlMs]),
      );
      if (claim.rowCount) {
        request.wharfIdempotency = { client, company, key, route, hash, ended: false };
        RequestContext.pinConnection(new PinnedConnection(client));
        return;
      }
      stored = (await client.query(prepared(STORED_KEY, [company, key]))).rows[0] as StoredAnswer | undefined;
      await client.query('ROLLBACK');
      client.release();
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
    if (!stored) {
      // Expired between the claim and the read: the next try claims it.
      const inUse = ApiError.of(409, 'The Idempotency-Key is in use; retry.', {
        code: 'idempotency_key_in_use',
      });
      throw new ApiError(409, inUse.errors, { 'retry-after': '1' });
    }
    if (stored.route !== route) {
      throw reused(`This Idempotency-Key was used for ${stored.route}; use a new key for another request.`);
    }
    if (stored.body_hash !== hash) {
      throw reused('This Idempotency-Key was used with another body; use a new key for another request.');
    }
    void reply.code(stored.status).headers(stored.headers).header(REPLAYED_HEADER, 'true');
    return reply.send(stored.body ?? '');
  }

  async function answered(request: KeyedRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.wharfIdempotency;
    if (!claim || claim.ended) return payload;
    return end(claim, request, reply, payload);
  }

  // A request that never reached onSend (its client went away mid-handler) must not keep its transaction.
  async function abandoned(request: KeyedRequest) {
    const claim = request.wharfIdempotency;
    if (claim && !claim.ended) await settle(claim, 'ROLLBACK');
  }

  async function end(claim: Claim, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    claim.ended = true;
    RequestContext.pinConnection(undefined);
    const status = reply.statusCode;
    const { client, company, key, route, hash } = claim;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
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

  async function settle(claim: Claim, statement: 'ROLLBACK') {
    claim.ended = true;
    try {
      await claim.client.query(statement);
      claim.client.release();
    } catch (error) {
      claim.client.release(error as Error);
    }
  }
}
