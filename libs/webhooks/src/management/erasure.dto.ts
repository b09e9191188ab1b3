import { ApiProperty } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { orNull } from '@wharf/core';
import { IsNotEmpty, IsString, IsUUID } from 'class-validator';

/** `POST /int/v1/erasures`: the record whose data is erased from stored payloads and request logs. */
export class ErasureRequestDto {
  @ApiProperty({ description: 'The resource, by its singular name (e.g. `driver`).', example: 'driver' })
  @IsString()
  @IsNotEmpty()
  resource: string;

  @ApiProperty({ description: 'The record’s uuid.', format: 'uuid' })
  @IsUUID('all')
  id: string;
}

/** An erasure as served (and its audit). */
export const ERASURE_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    erasure: {
      type: 'object',
      properties: {
        uuid: { type: 'string', format: 'uuid' },
        status: { type: 'string', enum: ['pending', 'running', 'done', 'failed'] },
        resource: { type: 'string' },
        record_id: { type: 'string', format: 'uuid' },
        rows_redacted: { type: 'integer', description: 'Event and request-log rows redacted so far.' },
        requested_by: orNull({ type: 'string', format: 'uuid', description: 'The API key.' }),
        error: orNull({ type: 'string' }),
        created_at: { type: 'string', format: 'date-time' },
        finished_at: orNull({ type: 'string', format: 'date-time' }),
      },
      required: ['uuid', 'status', 'resource', 'record_id', 'rows_redacted', 'requested_by', 'created_at'],
    },
  },
  required: ['erasure'],
};
