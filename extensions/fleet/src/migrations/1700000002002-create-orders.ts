import { createResourceTable } from '@wharf/core';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOrders1700000002002 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'orders',
      `"reference" varchar(255),
       "status" varchar(16) NOT NULL DEFAULT 'created'
         CHECK ("status" IN ('created', 'dispatched', 'enroute', 'completed', 'canceled')),
       "driver_uuid" uuid REFERENCES "drivers" ("uuid") ON DELETE SET NULL,
       "pickup_location_uuid" uuid REFERENCES "locations" ("uuid") ON DELETE SET NULL,
       "dropoff_location_uuid" uuid REFERENCES "locations" ("uuid") ON DELETE SET NULL,
       "scheduled_at" timestamptz(3), "notes" text,
       "meta" jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof("meta") = 'object')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "orders"');
  }
}
