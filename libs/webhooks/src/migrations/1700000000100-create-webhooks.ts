import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1700000000100 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'webhook_endpoints',
      `"url" text NOT NULL,
       "description" text,
       "events" jsonb NOT NULL DEFAULT '["*"]',
       "status" varchar(16) NOT NULL DEFAULT 'enabled' CHECK ("status" IN ('enabled', 'disabled')),
       "secret" text NOT NULL,
       "previous_secret" text,
       "previous_secret_expires_at" timestamptz,
       "api_version" varchar(16) NOT NULL DEFAULT 'v1',
       "verified_at" timestamptz,
       "disabled_at" timestamptz,
       "disabled_reason" text,
       "failing_since" timestamptz`,
    );
    // The outbox and event log: written in the same transaction as the change it describes.
    await queryRunner.query(`CREATE TABLE "webhook_events" (
      "id" bigserial PRIMARY KEY,
      "event_id" varchar(64) NOT NULL UNIQUE,
      "company_uuid" uuid NOT NULL REFERENCES "companies" ("uuid") ON DELETE CASCADE,
      "name" varchar(128) NOT NULL,
      "payload" json NOT NULL,
      "created_at" timestamptz NOT NULL DEFAULT now(),
      "dispatched_at" timestamptz
    )`);
    await queryRunner.query(
      'CREATE INDEX "webhook_events_undispatched_idx" ON "webhook_events" ("id") WHERE "dispatched_at" IS NULL',
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_events_company_idx" ON "webhook_events" ("company_uuid", "created_at")',
    );
    await createResourceTable(
      queryRunner,
      'webhook_deliveries',
      `"event_id" varchar(64) NOT NULL REFERENCES "webhook_events" ("event_id") ON DELETE CASCADE,
       "webhook_endpoint_uuid" uuid NOT NULL REFERENCES "webhook_endpoints" ("uuid") ON DELETE CASCADE,
       "status" varchar(16) NOT NULL DEFAULT 'pending' CHECK ("status" IN ('pending', 'successful', 'failed')),
       "attempts" integer NOT NULL DEFAULT 0,
       "next_attempt_at" timestamptz NOT NULL DEFAULT now(),
       "last_attempt_at" timestamptz,
       UNIQUE ("event_id", "webhook_endpoint_uuid")`,
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = \'pending\'',
    );
    await createResourceTable(
      queryRunner,
      'webhook_request_logs',
      `"webhook_endpoint_uuid" uuid NOT NULL REFERENCES "webhook_endpoints" ("uuid") ON DELETE CASCADE,
       "webhook_delivery_uuid" uuid REFERENCES "webhook_deliveries" ("uuid") ON DELETE SET NULL,
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
       "status" varchar(16) NOT NULL CHECK ("status" IN ('successful', 'failed')),
       "sent_at" timestamptz NOT NULL`,
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_request_logs_sent_at_idx" ON "webhook_request_logs" ("company_uuid", "sent_at")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'webhook_request_logs',
      'webhook_deliveries',
      'webhook_events',
      'webhook_endpoints',
    ]) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
  }
}
