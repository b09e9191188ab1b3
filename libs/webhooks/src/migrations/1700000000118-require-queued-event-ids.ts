import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every queued outbox event carries its event id (which names its outbox partition): ids queued without one
 * get it, and the column becomes NOT NULL. The relay looked such ids up by id as well, a search of every
 * outbox partition that a generic plan ran on every batch, empty or not. Apply with the api and the worker
 * of this version: an api from before the event id was queued (migration 1700000000114) cannot write.
 */
export class RequireQueuedEventIds1700000000118 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "webhook_events_undispatched" u SET "event_id" = e."event_id"
       FROM "webhook_events" e WHERE e."id" = u."id" AND u."event_id" IS NULL`,
    );
    // An id whose event is gone (its company deleted) has nothing left to fan out.
    await queryRunner.query('DELETE FROM "webhook_events_undispatched" WHERE "event_id" IS NULL');
    await queryRunner.query('ALTER TABLE "webhook_events_undispatched" ALTER COLUMN "event_id" SET NOT NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'ALTER TABLE "webhook_events_undispatched" ALTER COLUMN "event_id" DROP NOT NULL',
    );
  }
}
