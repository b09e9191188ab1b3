import { Type } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import type { Sql } from './sql-runner';

// The resource layer's declarations that refer to one another (a definition names its hooks, hooks see
// the write transaction, which holds changes that name their definition): one file, so none imports back.

export type ColumnKind = 'integer' | 'number' | 'boolean' | 'uuid' | 'timestamp' | 'string' | 'json';

export interface ColumnInfo {
  name: string;
  kind: ColumnKind;
  /** Allowed values of an enum column. */
  enum?: string[];
  /** Whether the column may hold NULL (a keyset cursor can bound a NOT NULL sort column by an index range). */
  nullable?: boolean;
  /** A `number` column PostgreSQL keeps as double precision: already the double a client reads. */
  double?: boolean;
}

export interface EmbedInfo {
  property: string;
  kind: 'one' | 'many';
  /** one: the local `<property>_uuid` column; many: the child's column pointing back at our uuid. */
  column: string;
  target: () => ResourceDefinition;
  /** many: the most items one write may give the list (ResourceModelOptions.maxEmbedded). */
  maxItems: number;
}

export interface ReferenceInfo {
  /** Local column holding another record's uuid. */
  column: string;
  table: string;
  /** Resource name of the target, for messages. */
  resource: string;
  /** Whether the target table is tenant-scoped (has company_uuid). */
  scoped: boolean;
  /** What the foreign key does when the target is deleted. */
  onDelete: 'SET NULL' | 'CASCADE' | 'RESTRICT' | 'NO ACTION' | 'DEFAULT';
}

/** Everything the generic resource layer knows about one resource, computed once at start-up. */
export interface ResourceDefinition {
  name: string;
  path: string;
  keys: { singular: string; plural: string };
  entity: Type;
  /** Where its permissions are named, `inventory.warehouses` (`:read`, `:write`): set by the permission catalog. */
  scope?: string;
  table: string;
  dto: Type;
  /** Filterable/sortable/serialised columns (all but `id` and hidden ones). */
  columns: Map<string, ColumnInfo>;
  searchable: string[];
  /** Where the search index is when it is not on the table (see ResourceModelOptions.searchKeys). */
  searchKeys?: { table: string; by: string[] };
  /** Columns `?sort=` accepts, each with a `(company_uuid, column, id)` index (see list-indexes.ts). */
  sortable: Set<string>;
  writable: Set<string>;
  hidden: Set<string>;
  embeds: EmbedInfo[];
  references: ReferenceInfo[];
  /** Serialised columns a write ignores (maintained by the resource itself). */
  readOnly?: Set<string>;
  /** The provider running the resource's domain logic inside its writes. */
  hooks?: Type<ResourceHooks>;
  /** False when the resource's writes emit no webhook events (see ResourceModelOptions.events). */
  events?: boolean;
  /** What some JSON columns hold, for the OpenAPI document (see ResourceModelOptions.schemas). */
  schemas?: Record<string, Record<string, unknown>>;
  /** Which rows a caller reads (see ResourceModelOptions.visibility). */
  visibility?: { column: string; by: Type<RowVisibility> };
}

/**
 * Which rows of a resource the caller of the request being handled may read, by one column's values: the
 * list's filter and a find's 404 (`undefined`: every row, and no filter at all).
 */
export interface RowVisibility {
  visibleValues(): readonly string[] | undefined;
}

/** A stored row of a resource table (all columns, including internal ones). */
export type ResourceRow = Record<string, any>;

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

/** One write: its connection, company, and the changes/events that commit (or roll back) with it. */
export interface WriteTransaction {
  readonly queryRunner: QueryRunner;
  readonly companyUuid: string;
  /** Statements on the transaction's own connection. */
  readonly sql: Sql;
  readonly changes: ResourceChange[];
  readonly events: DomainEvent[];
  /** Emit a custom domain event (e.g. `order.dispatched`) atomically with the write; it must be declared. */
  emit(event: DomainEvent): void;
}

/**
 * Domain logic a resource runs inside its own writes, in the write's transaction: validate a change
 * (throw an `ApiError` to refuse it; the transaction rolls back and nothing is emitted), adjust the
 * values about to be written, and emit domain events with `tx.emit(...)` once the change is made.
 *
 * Declared with `@ResourceModel(name, { hooks: OrderHooks })`; the class is a Nest provider of the
 * extension (added to its providers automatically), so it can inject `ResourceServices` and the like.
 * Hooks run for every write of the resource: its own routes, nested writes through another resource's
 * embedded relationship, and `ResourceService` calls made by extension code.
 */
export interface ResourceHooks {
  /** Before an insert; `values` are the validated columns about to be written (may be changed). */
  beforeCreate?(tx: WriteTransaction, values: Record<string, unknown>): void | Promise<void>;
  /**
   * Before an update; `before` is the stored row (locked for a top-level write), `values` the validated
   * columns the write sets (only those sent; may be changed).
   */
  beforeUpdate?(
    tx: WriteTransaction,
    before: ResourceRow,
    values: Record<string, unknown>,
  ): void | Promise<void>;
  /** Before a delete of the stored row `before`. */
  beforeDelete?(tx: WriteTransaction, before: ResourceRow): void | Promise<void>;
  /**
   * After a create, an update that changed something (`change.changes` = `{field: [old, new]}`) or a
   * delete, with the serialised record: the place to emit domain events atomically with the change.
   */
  afterWrite?(tx: WriteTransaction, change: ResourceChange): void | Promise<void>;
}
