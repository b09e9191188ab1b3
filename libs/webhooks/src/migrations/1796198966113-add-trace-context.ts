import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tracing across the queue: an event keeps the W3C trace context of the write that made it
 * (`trace_context`: its traceparent, then a newline and its tracestate), so every attempt at delivering it
 * is traced in that write's trace; null when the writer was not tracing. It is never sent to receivers. An
 * endpoint sends its attempts' `traceparent` only with `propagate_trace` (off by default).
 */
export class AddTraceContext1796198966113 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_events" ADD COLUMN "trace_context" text`);
    await queryRunner.query(
      `ALTER TABLE "webhook_endpoints" ADD COLUMN "propagate_trace" boolean NOT NULL DEFAULT false`,
    );
    await queryRunner.query(
      'CREATE INDEX IF NOT EXISTS "webhook_endpoints_propagate_trace_sort_idx" ON "webhook_endpoints" USING btree ("company_uuid", "propagate_trace", "id")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_endpoints" DROP COLUMN "propagate_trace"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "trace_context"');
  }
}
