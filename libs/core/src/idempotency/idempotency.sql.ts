/**
 * The statements over idempotency_keys (migration 1700000000007). A key is its company's: every statement
 * is filtered by `company_uuid`.
 */

/**
 * Claims a key: inserts it, or takes over an expired row the purge has not removed yet. No row back when
 * the key is held: a request holding it still running makes this wait until its transaction ends, and then
 * either its row is there (committed) or the claim succeeds (it rolled back). $5–$7: the answer, NULL while
 * the request runs.
 */
export const CLAIM_KEY = `INSERT INTO "idempotency_keys" AS k
    ("company_uuid", "key", "route", "body_hash", "status", "headers", "body", "expires_at")
  VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, now() + $8::float8 * interval '1 millisecond')
  ON CONFLICT ("company_uuid", "key") DO UPDATE SET "route" = EXCLUDED."route",
    "body_hash" = EXCLUDED."body_hash", "status" = EXCLUDED."status", "headers" = EXCLUDED."headers",
    "body" = EXCLUDED."body", "created_at" = now(), "expires_at" = EXCLUDED."expires_at"
  WHERE k."expires_at" <= now()
  RETURNING 1 AS "claimed"`;

/** A key's stored request and answer, unless expired. */
export const STORED_KEY = `SELECT "route", "body_hash", "status", "headers", "body" FROM "idempotency_keys"
  WHERE "company_uuid" = $1 AND "key" = $2 AND "expires_at" > now()`;

/** The answer of the request that claimed the key, in its transaction. */
export const ANSWER_KEY = `UPDATE "idempotency_keys" SET "status" = $3, "headers" = $4::jsonb, "body" = $5
  WHERE "company_uuid" = $1 AND "key" = $2`;

/**
 * One batch of expired keys, oldest first through the expiry index; SKIP LOCKED: several api processes
 * purge side by side without waiting on each other.
 */
export const PURGE_EXPIRED = `DELETE FROM "idempotency_keys" WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM "idempotency_keys" WHERE "expires_at" <= now()
    ORDER BY "expires_at" LIMIT $1 FOR UPDATE SKIP LOCKED))`;

/**
 * Erasure of a record from stored answers (the worker's erasure runner): the company's ($1) next keys after
 * $2 whose answer mentions the record ($3), at most $4, in key order off the primary key, locked.
 */
export const ANSWERS_TO_ERASE = `SELECT "key" AS id, "body" FROM "idempotency_keys"
  WHERE "company_uuid" = $1 AND "key" > $2 AND strpos("body", $3) > 0
  ORDER BY "key" LIMIT $4 FOR UPDATE`;

/** Writes erased answers ($1 companies, $2 keys, $3 bodies). */
export const WRITE_ERASED_ANSWERS = `UPDATE "idempotency_keys" k SET "body" = v."body"
  FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v("company_uuid", "key", "body")
  WHERE k."company_uuid" = v."company_uuid" AND k."key" = v."key"`;
