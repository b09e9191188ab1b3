import { SetMetadata } from '@nestjs/common';
import { QueryRunner } from 'typeorm';
import { ResourceDefinition } from './resource-definition';

export type ResourceAction = 'created' | 'updated' | 'deleted';

/** One committed-together change of a record, snapshotted inside the write's transaction. */
export interface ResourceChange {
  resource: ResourceDefinition;
  action: ResourceAction;
  record: Record<string, unknown>;
  /** For updates: `{field: [old, new]}` of what changed. */
  changes?: Record<string, [unknown, unknown]>;
}

/** A domain event an extension emits inside a write (e.g. `order.dispatched`). */
export interface DomainEvent {
  name: string;
  record: Record<string, unknown>;
  additionalData?: Record<string, unknown>;
}

/**
 * Receives every change and domain event of a write transaction before it commits, on the same
 * connection: the webhook outbox implements it, so a rolled-back write emits nothing. Register a provider
 * as one with `@ResourceWriteListener()`; any number of them run, in module order.
 */
export interface WriteListener {
  beforeCommit(
    queryRunner: QueryRunner,
    companyUuid: string,
    changes: ResourceChange[],
    events: DomainEvent[],
  ): Promise<void>;
}

export const WRITE_LISTENER = Symbol('wharf:write-listener');

/** Marks a provider implementing WriteListener: every such provider of every module receives the writes. */
export const ResourceWriteListener = (): ClassDecorator => SetMetadata(WRITE_LISTENER, true);
