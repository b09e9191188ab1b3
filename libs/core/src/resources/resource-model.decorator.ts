import { Type } from '@nestjs/common';
import type { ResourceHooks, RowVisibility } from './resource-definition';

export interface ResourceModelOptions {
  /**
   * An explicit class-validator DTO: its properties are the writable fields. Without one they are derived
   * from the entity (every column but the base, hidden and read-only ones; see `entityDto`).
   */
  dto?: Type;
  /**
   * Columns the `query` parameter searches (case-insensitive substring). Together they get one GIN index
   * of their 5-grams (`wharf_search_grams`, see list-indexes.ts) that `migration:generate` writes and
   * `migration:check` requires.
   */
  searchable?: string[];
  /**
   * For a table written far more often than searched whose searchable columns repeat across its rows (a
   * request log's event and url): the search index lives on `table`, which holds each distinct combination
   * of `company_uuid`, the `by` columns and the searchable ones, and the rows are found through a B-tree
   * on `by`. A row then costs no search-index entry of its own, only that B-tree's. The extension's
   * migration creates `table` and keeps it filled (e.g. a statement trigger on inserts); `migration:check`
   * requires both indexes. A search still rechecks every candidate with its ILIKE, so `by` only has to
   * group rows whose searchable values are among their key's.
   */
  searchKeys?: { table: string; by: string[] };
  /**
   * Columns `?sort=` accepts (`created_at`, the default sort, always is). Each gets a B-tree index
   * `(company_uuid, <column>, id)`, written by `migration:generate` and required by `migration:check`, so a
   * sorted first page stays an index read however many records the company has. Default: every
   * serialised column but JSON, unbounded `text` and `company_uuid` ones.
   */
  sortable?: string[];
  /** Relations serialised inside every record (to-one and to-many), loaded in one query each. */
  embed?: string[];
  /**
   * The most items one write may give an embedded to-many list (default 100, MAX_EMBEDDED_ITEMS); more is
   * a 422 pointing at the list. Bounds the work of one request.
   */
  maxEmbedded?: number;
  /** Columns never serialised nor filterable (e.g. secrets). */
  hidden?: string[];
  /**
   * Columns serialised but maintained by the resource itself (e.g. a driver's `location`, set by its own
   * route): ignored when a client echoes them back in a write, like `uuid` and the timestamps.
   */
  readOnly?: string[];
  /** Domain logic run inside every write of the resource (validation, domain events); see ResourceHooks. */
  hooks?: Type<ResourceHooks>;
  /**
   * Whether writes emit `<resource>.created|updated|deleted` webhook events and appear in the event
   * catalog (default true). Management resources such as webhook endpoints set it to false.
   */
  events?: boolean;
  /**
   * The JSON Schema of what a JSON column holds, by column (otherwise "any JSON value"): the OpenAPI
   * document's record and write bodies describe the column with it (null allowed where the column or
   * the DTO allows it). Documentation only: the resource's hooks validate the values.
   */
  schemas?: Record<string, Record<string, unknown>>;
  /**
   * The resource's part of its permissions' names, `<extension>.<permission>:read|write` (default: its
   * plural with underscores, `inventory.warehouse_sections:read`).
   */
  permission?: string;
  /**
   * Which rows a caller reads, by the values of one column (a request log by event, for a key that may
   * read the events of some resources only): the provider answers per request, `undefined` for every row.
   */
  visibility?: { column: string; by: Type<RowVisibility> };
}

/** The default bound of an embedded to-many list in one write. */
export const MAX_EMBEDDED_ITEMS = 100;

export interface ResourceModelMetadata extends ResourceModelOptions {
  name: string;
}

const RESOURCE_MODEL = Symbol('wharf:resource-model');

/**
 * Marks a TypeORM entity as the model of a REST resource: its singular name,
 * searchable columns, embedded relationships and (optionally) an explicit DTO of its writable fields.
 */
export function ResourceModel(name: string, options: ResourceModelOptions): ClassDecorator {
  return (target) => Reflect.defineMetadata(RESOURCE_MODEL, { name, ...options }, target);
}

export function resourceModel(target: unknown): ResourceModelMetadata | undefined {
  return Reflect.getMetadata(RESOURCE_MODEL, target as object);
}

const RESOURCE_SCOPE = Symbol('wharf:resource-scope');

/** Names the scope of a resource model's permissions (the permission catalog does, once it checked it). */
export function setResourceScope(target: object, scope: string): void {
  Reflect.defineMetadata(RESOURCE_SCOPE, scope, target);
}

/** `inventory.warehouses`: the scope of the model's permissions; undefined before a catalog named it. */
export function resourceScope(target: object): string | undefined {
  return Reflect.getMetadata(RESOURCE_SCOPE, target) as string | undefined;
}
