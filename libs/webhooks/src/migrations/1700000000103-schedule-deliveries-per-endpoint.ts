import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery scheduling per endpoint (isolation and ordering). A pending delivery is either
 * waiting in PostgreSQL (`admitted_at` null: not yet due, over its endpoint's `max_in_flight`, or held back
 * behind an earlier delivery of the same record) or admitted (a BullMQ job exists or is about to). Only
 * admitted deliveries occupy the queue, so a backlog waits here without holding a worker slot.
 */
export class ScheduleDeliveriesPerEndpoint1700000000103 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_endpoints"
      ADD COLUMN "max_in_flight" integer NOT NULL DEFAULT 10 CHECK ("max_in_flight" BETWEEN 1 AND 100),
      ADD COLUMN "rate_limit_per_second" integer CHECK ("rate_limit_per_second" >= 1),
      ADD COLUMN "ordering" varchar(16) NOT NULL DEFAULT 'none' CHECK ("ordering" IN ('none', 'entity')),
      ADD COLUMN "throttled" boolean NOT NULL DEFAULT false,
      ADD COLUMN "throttled_reason" text,
      ADD COLUMN "consecutive_timeouts" integer NOT NULL DEFAULT 0`);
    // entity_key/event_seq are set only for endpoints with ordering = 'entity' (the record's data.id and
    // the outbox position, which for one record is its commit order).
    await queryRunner.query(`ALTER TABLE "webhook_deliveries"
      ADD COLUMN "admitted_at" timestamptz,
      ADD COLUMN "entity_key" text,
      ADD COLUMN "event_seq" bigint`);
    // Deliveries pending before this migration already have their BullMQ jobs.
    await queryRunner.query(
      `UPDATE "webhook_deliveries" SET "admitted_at" = now() WHERE "status" = 'pending'`,
    );
    await queryRunner.query('DROP INDEX "webhook_deliveries_pending_idx"');
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_waiting_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "next_attempt_at")
       WHERE "status" = 'pending' AND "admitted_at" IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_admitted_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "admitted_at")
       WHERE "status" = 'pending' AND "admitted_at" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_entity_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "entity_key", "event_seq")
       WHERE "status" = 'pending' AND "entity_key" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of ['waiting', 'admitted', 'entity']) {
      await queryRunner.query(`DROP INDEX "webhook_deliveries_${index}_idx"`);
    }
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("next_attempt_at") WHERE "status" = 'pending'`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries"
      DROP COLUMN "admitted_at", DROP COLUMN "entity_key", DROP COLUMN "event_seq"`);
    await queryRunner.query(`ALTER TABLE "webhook_endpoints"
      DROP COLUMN "max_in_flight", DROP COLUMN "rate_limit_per_second", DROP COLUMN "ordering",
      DROP COLUMN "throttled", DROP COLUMN "throttled_reason", DROP COLUMN "consecutive_timeouts"`);
  }
}
