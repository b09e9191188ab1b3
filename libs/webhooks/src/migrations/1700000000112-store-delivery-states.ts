import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery's state is stored, not implied: `status` holds waiting, admitted, retrying or failed (see
 * store/delivery-state.ts), where it held pending or failed and `admitted_at` and `attempts` told the rest.
 * Rows of delivered deliveries, which versions before the record deleted them kept as `successful`, go: a
 * delivered delivery is represented by its absence (its attempts stay in the request log). The scheduling
 * indexes are rebuilt on the new predicates; every admitted delivery gets an admission number.
 *
 * Locks webhook_deliveries while it rewrites its unfinished rows and rebuilds three indexes. Stop every api
 * and worker of an earlier version first: they write `pending`, which the new check refuses.
 */
export class StoreDeliveryStates1700000000112 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of ['waiting', 'admitted', 'entity'])
      await queryRunner.query(`DROP INDEX "webhook_deliveries_${index}_idx"`);
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_status_check"',
    );
    await queryRunner.query(`DELETE FROM "webhook_deliveries" WHERE "status" = 'successful'`);
    await queryRunner.query(`UPDATE "webhook_deliveries" SET "status" = CASE
        WHEN "status" = 'failed' THEN 'failed' WHEN "admitted_at" IS NOT NULL THEN 'admitted'
        WHEN "attempts" > 0 THEN 'retrying' ELSE 'waiting' END,
      "admission" = CASE WHEN "admitted_at" IS NOT NULL
        THEN coalesce("admission", (extract(epoch FROM "admitted_at") * 1000000)::bigint) END
      WHERE "status" <> 'failed'`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "status" SET DEFAULT 'waiting',
      ADD CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('waiting', 'admitted', 'retrying', 'failed'))`);
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_waiting_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "next_attempt_at")
       WHERE "status" IN ('waiting', 'retrying')`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_admitted_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "admitted_at")
       WHERE "status" = 'admitted'`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_deliveries_entity_idx" ON "webhook_deliveries" ("webhook_endpoint_uuid", "entity_key", "event_seq")
       WHERE "status" <> 'failed' AND "entity_key" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of ['waiting', 'admitted', 'entity'])
      await queryRunner.query(`DROP INDEX "webhook_deliveries_${index}_idx"`);
    await queryRunner.query(
      'ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_status_check"',
    );
    await queryRunner.query(
      `UPDATE "webhook_deliveries" SET "status" = CASE WHEN "status" = 'failed' THEN 'failed' ELSE 'pending' END`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ALTER COLUMN "status" SET DEFAULT 'pending',
      ADD CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'successful', 'failed'))`);
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
}
