import { Type } from '@nestjs/common';
import type { ResourceHooks } from './resource-hooks';

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
}
