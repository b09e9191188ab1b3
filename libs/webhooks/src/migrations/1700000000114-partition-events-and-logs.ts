import { parseDuration } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { Db, ensurePartitions, forValues } from '../stages/lifecycle/partitions';
import { EVENTS, PartitionedTable, REQUEST_LOGS } from '../stages/lifecycle/partitioned-tables';

const EVENT_COLUMNS = `"id" bigint NOT NULL DEFAULT nextval('webhook_events_id_seq'),
  "event_id" varchar(64) NOT NULL,
  "company_uuid" uuid NOT NULL,
  "name" varchar(128) NOT NULL,
  "payload" json NOT NULL,
  "created_at" timestamptz NOT NULL DEFAULT now()`;

const LOG_COLUMNS = `"id" integer NOT NULL DEFAULT nextval('webhook_request_logs_id_seq'),
  "uuid" uuid DEFAULT gen_random_uuid(),
  "company_uuid" uuid,
  "webhook_endpoint_uuid" uuid NOT NULL,
  "webhook_delivery_uuid" uuid,
  "event_id" varchar(64) NOT NULL,
  "event" varchar(128) NOT NULL,
  "attempt" integer NOT NULL,
  "test" boolean NOT NULL DEFAULT false,
  "url" text NOT NULL,
  "request_headers" jsonb NOT NULL,
  "request_body" text NOT NULL,
  "response_status" integer,
  "response_headers" jsonb,
  "response_body" text,
  "duration_ms" integer NOT NULL,
  "error" text,
  "status" varchar(16) NOT NULL CONSTRAINT "webhook_request_logs_status_check" CHECK ("status" IN ('successful', 'failed')),
  "sent_at" timestamptz NOT NULL,
  "created_at" timestamp(3) with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp(3) with time zone NOT NULL DEFAULT now()`;

/** The keys, indexes and trigger of each table, built once its rows are in (faster than row by row). */
const EVENT_INDEXES = (key: string) => [
  `ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id"${key})`,
  'ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_event_id_key" UNIQUE ("event_id")',
  `ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_company_uuid_fkey" FOREIGN KEY ("company_uuid") REFERENCES "companies" ("uuid") ON DELETE CASCADE`,
  'CREATE INDEX "webhook_events_company_idx" ON "webhook_events" ("company_uuid", "created_at")',
];

const LOG_INDEXES = (key: string) => [
  `ALTER TABLE "webhook_request_logs" ADD CONSTRAINT "webhook_request_logs_pkey" PRIMARY KEY ("id"${key})`,
  `ALTER TABLE "webhook_request_logs" ADD CONSTRAINT "webhook_request_logs_uuid_key" UNIQUE ("uuid"${key})`,
  `ALTER TABLE "webhook_request_logs" ADD CONSTRAINT "webhook_request_logs_webhook_endpoint_uuid_fkey" FOREIGN KEY ("webhook_endpoint_uuid") REFERENCES "webhook_endpoints" ("uuid") ON DELETE CASCADE`,
  'CREATE INDEX "webhook_request_logs_created_at_sort_idx" ON "webhook_request_logs" ("company_uuid", "created_at", "id")',
  'CREATE INDEX "webhook_request_logs_sent_at_sort_idx" ON "webhook_request_logs" ("company_uuid", "sent_at", "id")',
  'CREATE INDEX "webhook_request_logs_status_sort_idx" ON "webhook_request_logs" ("company_uuid", "status", "id")',
  'CREATE INDEX "webhook_request_logs_event_id_idx" ON "webhook_request_logs" ("company_uuid", "event_id")',
  'CREATE INDEX "webhook_request_logs_webhook_endpoint__ee2d66a5_search_keys_idx" ON "webhook_request_logs" ("webhook_endpoint_uuid", "event")',
  `CREATE TRIGGER "webhook_request_logs_search_keys" AFTER INSERT ON "webhook_request_logs"
     REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION wharf_webhook_request_log_search_keys()`,
];

/**
 * webhook_events and webhook_request_logs become range-partitioned by creation time (see
 * stages/lifecycle/partitioned-tables.ts), so that retention drops whole partitions instead of deleting
 * rows. Their rows are copied into the new tables: the rows from before the current interval into one
 * partition (`…_before`, made only when there are rows, dropped whole once its newest row is past retention), later ones into the
 * interval's partitions, created with those ahead (WEBHOOKS_PARTITION_INTERVAL as the migration sees it).
 * The relay's queue also records each event's id, which names its partition.
 *
 * Locks: both tables are held ACCESS EXCLUSIVE from the start of the migration to its commit, one copy of
 * their rows and one build of their indexes: every api write that emits an event, and the worker's
 * recording, wait for it. Stop the workers first and run it in a quiet hour; see docs/data-lifecycle.md.
 */
export class PartitionEventsAndLogs1700000000114 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    const db = asDb(queryRunner);
    const interval = parseDuration(process.env.WEBHOOKS_PARTITION_INTERVAL?.trim() || '1d');
    const now = Date.now();
    const current = Math.floor(now / interval) * interval;
    for (const [table, columns] of [
      [EVENTS, EVENT_COLUMNS],
      [REQUEST_LOGS, LOG_COLUMNS],
    ] as const) {
      await db.query(`ALTER TABLE "${table.name}" RENAME TO "${table.name}_unpartitioned"`);
      await db.query(`ALTER SEQUENCE "${table.name}_id_seq" OWNED BY NONE`);
      await db.query(`CREATE TABLE "${table.name}" (${columns}) PARTITION BY RANGE ("${table.key}")`);
      await db.query(`ALTER SEQUENCE "${table.name}_id_seq" OWNED BY "${table.name}"."id"`);
      const { rows } = await db.query(`SELECT EXISTS (SELECT 1 FROM "${table.name}_unpartitioned") AS any`);
      if (rows[0].any)
        await db.query(
          `CREATE TABLE "${table.name}_before" PARTITION OF "${table.name}" ${forValues(table, { from: -Infinity, to: current })}`,
        );
    }
    await ensurePartitions(db, interval, { now, inTransaction: true });
    for (const table of [EVENTS, REQUEST_LOGS]) await copyRows(db, table);
    for (const statement of [...EVENT_INDEXES(', "event_id"'), ...LOG_INDEXES(', "sent_at"')])
      await db.query(statement);
    await db.query('ALTER TABLE "webhook_events_undispatched" ADD COLUMN "event_id" varchar(64)');
    await db.query(
      `UPDATE "webhook_events_undispatched" u SET "event_id" = e."event_id" FROM "webhook_events" e WHERE e."id" = u."id"`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const db = asDb(queryRunner);
    await db.query('ALTER TABLE "webhook_events_undispatched" DROP COLUMN "event_id"');
    for (const [table, columns] of [
      [EVENTS, EVENT_COLUMNS],
      [REQUEST_LOGS, LOG_COLUMNS],
    ] as const) {
      await db.query(`ALTER TABLE "${table.name}" RENAME TO "${table.name}_unpartitioned"`);
      await db.query(`ALTER SEQUENCE "${table.name}_id_seq" OWNED BY NONE`);
      await db.query(`CREATE TABLE "${table.name}" (${columns})`);
      await db.query(`ALTER SEQUENCE "${table.name}_id_seq" OWNED BY "${table.name}"."id"`);
      await copyRows(db, table);
    }
    for (const statement of [...EVENT_INDEXES(''), ...LOG_INDEXES('')]) await db.query(statement);
  }
}

/** Copies the rows of `<table>_unpartitioned` into `table` (routed to their partitions), then drops it. */
async function copyRows(db: Db, table: PartitionedTable): Promise<void> {
  const { rows } = await db.query(
    `SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) AS list FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [table.name],
  );
  const list = rows[0].list as string;
  await db.query(`INSERT INTO "${table.name}" (${list}) SELECT ${list} FROM "${table.name}_unpartitioned"`);
  await db.query(`DROP TABLE "${table.name}_unpartitioned"`);
}

function asDb(queryRunner: QueryRunner): Db {
  return { query: async (text, params) => ({ rows: await queryRunner.query(text, params) }) };
}
