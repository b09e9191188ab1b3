import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An admission's number, from a sequence: it names the batch job of the deliveries one statement admitted
 * together (see deliveryBatchJobId). It was admitted_at in microseconds, which two statements starting in
 * the same few microseconds (two workers, or one worker's relay and recorder, for one endpoint) shared:
 * BullMQ kept the first job of that id and the second statement's deliveries sat without one until the
 * sweeper's grace ran out. Deliveries admitted before this migration keep the microseconds their jobs are
 * named by (the sequence's numbers are far below them).
 *
 * Down: workers from before this migration name batch jobs by microseconds only, so stop the workers that
 * name them by number before it runs; the sweeper of an older worker would not find those jobs and queue
 * their deliveries again.
 */
export class NumberAdmissions1700000000111 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SEQUENCE "webhook_admission_seq" AS bigint');
    await queryRunner.query('ALTER TABLE "webhook_deliveries" ADD COLUMN "admission" bigint');
    await queryRunner.query(
      `UPDATE "webhook_deliveries" SET "admission" = (extract(epoch FROM "admitted_at") * 1000000)::bigint
       WHERE "admitted_at" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_deliveries" DROP COLUMN "admission"');
    await queryRunner.query('DROP SEQUENCE "webhook_admission_seq"');
  }
}
