import { SetMetadata } from '@nestjs/common';
import { QueryRunner } from 'typeorm';
import type { DomainEvent, ResourceChange, ResourceDefinition } from './resource-definition';

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

  /**
   * The same, for a plain create or update that runs as one statement (no transaction around it): the
   * SQL that records `change` inside that statement. Without this method every write is a transaction.
   */
  inStatement?(change: StatementChange): StatementParts;
}

/** The parameters of a one-statement write, as its listeners add to them (see StatementChange.params). */
export interface StatementParams {
  /** A value the same in every execution of the statement's shape; returns its placeholder. */
  add(value: unknown): string;
  /** A value made anew (by calling `make`) for every execution; returns its placeholder. */
  fresh(make: () => unknown): string;
}

/** A change made by a one-statement write, as SQL a write listener can read. */
export interface StatementChange {
  resource: ResourceDefinition;
  action: 'created' | 'updated';
  /**
   * A CTE of at most one row: `record` (text: the record as served, compact JSON whose first key is `id`),
   * `changes` (json `{field: [old, new]}`
   * of an update, NULL for a create) and `changed` (false for an update that changed nothing: no event).
   */
  source: string;
  /**
   * The statement's parameters: every value goes here, never into the text. The statement is built once per
   * shape (resource, action, columns written) and reused, so `inStatement` runs once per shape: `params.add`
   * a value that is the same in every execution, `params.fresh(() => …)` one made anew for each (an id, a
   * time). The parts returned must depend only on the change's fields, never on anything else.
   */
  params: StatementParams;
  /** The parameter holding the writer's company uuid. */
  company: string;
  /** A prefix for the names of this listener's CTEs, unique in the statement (listeners share one WITH). */
  prefix: string;
}

/** What a listener adds to a one-statement write: CTEs (data-modifying ones always run), and select-list expressions that must be evaluated (e.g. a NOTIFY). */
export interface StatementParts {
  with: string[];
  select: string[];
}

export const WRITE_LISTENER = Symbol('wharf:write-listener');

/** Marks a provider implementing WriteListener: every such provider of every module receives the writes. */
export const ResourceWriteListener = (): ClassDecorator => SetMetadata(WRITE_LISTENER, true);
