import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which outbox events are still to be fanned out is a queue of their ids beside the outbox, not a
 * `dispatched_at` column on it. Setting the column rewrote every event (payload and all, a new row version
 * in a new page) and added an entry to each of its three other indexes, since a column in an index's
 * predicate rules out a HOT update; deleting the ids from a narrow queue does neither, and the relay is on
 * every delivery's path. The writers queue an event in the statement that writes it. No foreign key:
 * an event deleted before it was fanned out (its company deleted) leaves an id the relay drops on its
 * next claim, and a write pays no key check.
 */
export class QueueUndispatchedEvents1700000000109 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE "webhook_events_undispatched" ("id" bigint PRIMARY KEY)');
    await queryRunner.query(
      'INSERT INTO "webhook_events_undispatched" ("id") SELECT "id" FROM "webhook_events" WHERE "dispatched_at" IS NULL',
    );
    await queryRunner.query('DROP INDEX "webhook_events_undispatched_idx"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "dispatched_at"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_events" ADD "dispatched_at" timestamptz');
    await queryRunner.query(
      `UPDATE "webhook_events" e SET "dispatched_at" = e."created_at"
       WHERE NOT EXISTS (SELECT 1 FROM "webhook_events_undispatched" u WHERE u."id" = e."id")`,
    );
    await queryRunner.query(
      'CREATE INDEX "webhook_events_undispatched_idx" ON "webhook_events" ("id") WHERE "dispatched_at" IS NULL',
    );
    await queryRunner.query('DROP TABLE "webhook_events_undispatched"');
  }
}
