import { DataSource } from 'typeorm';
import { untouchedKeyedRequest } from '../database/pinned-connection';
import type { ReadReplicas } from '../database/read-replicas';
import { poolOf } from '../database/typeorm-pg';
import { JsonText, underKey } from '../common/json-text';
import { WriteInput, readWriteBody } from './body-reader';
import { needsNormalising } from './record-sql';
import type { WriteListener } from './write-listener';
import type {
  EmbedInfo,
  ResourceDefinition,
  ResourceHooks,
  ResourceRow,
  RowVisibility,
  WriteTransaction,
} from './resource-definition';
import { ResourceReader } from './resource-reader';
import { serialize } from './resource-serializer';
import { Sql, sqlOfPool, sqlOfReads, sqlOfUnpinnedPool } from './sql-runner';
import { runWriteTransaction } from './resource-transaction';
import { RequestContext } from '../tenancy/request-context';
import { KEY_TAKEN, Referrer, ResourceWriter } from './resource-writer';
import type { DeclaredEvents } from './write-transaction';

export type { Referrer } from './resource-writer';

/** A page as list() answers it: the records under the resource's plural key, and `meta`. */
export type ListPage = Record<string, unknown> & {
  meta: {
    total: number;
    total_exact: boolean;
    per_page: number;
    current_page: number | null;
    last_page: number;
    from: number | null;
    to: number | null;
    next_cursor: string | null;
  };
};

type Record_ = Record<string, unknown>;

/**
 * Generic CRUD for one resource: list grammar, embedded relationships, nested writes, tenant scoping.
 * The routes and extension code call this; reads, writes and transactions live in their own classes.
 */
export class ResourceService {
  private readonly reader: ResourceReader;
  private readonly writer: ResourceWriter;
  private readonly sql: Sql;
  /** For a keyed create that stores its key itself: never the request's pinned connection. */
  private readonly unpinned: Sql;

  constructor(
    readonly def: ResourceDefinition,
    private readonly dataSource: DataSource,
    private readonly listeners: WriteListener[],
    /** The hooks of a resource (this one, or one written through an embedded relationship). */
    hooksOf: (def: ResourceDefinition) => ResourceHooks | undefined = () => undefined,
    /** The resources whose column points at a resource with ON DELETE SET NULL (ResourceServices knows them all). */
    referrersOf: (def: ResourceDefinition) => Referrer[] = () => [],
    /** The custom events `tx.emit` accepts. */
    private readonly declared?: DeclaredEvents,
    /** Which rows a caller reads, when the resource declares `visibility`. */
    visibility?: RowVisibility,
    /** The api's replicas, where its reads may go (none in the worker and the CLI). */
    replicas?: ReadReplicas,
  ) {
    this.sql = sqlOfPool(poolOf(dataSource));
    this.unpinned = sqlOfUnpinnedPool(poolOf(dataSource));
    this.reader = new ResourceReader(def, sqlOfReads(poolOf(dataSource), replicas), visibility);
    this.writer = new ResourceWriter(def, hooksOf, referrersOf);
  }

  /** A page and its `meta`, as `{"<plural>": [...], "meta": {...}}`. */
  async list(query: Record<string, unknown>): Promise<ListPage> {
    return (await this.listJson(query)).value<ListPage>();
  }

  /** list() as the JSON text PostgreSQL built, for the route to send as it is. */
  listJson(query: Record<string, unknown>): Promise<JsonText> {
    return this.reader.list(query);
  }

  async find(uuid: string): Promise<Record_> {
    return (await this.findJson(uuid)).value();
  }

  /** find() as JSON text, for the route. */
  async findJson(uuid: string): Promise<JsonText> {
    return underKey(this.def.keys.singular, await this.reader.find(uuid));
  }

  async create(body: unknown): Promise<Record_> {
    return (await this.createJson(body)).value();
  }

  /**
   * create() as JSON text, for the route: a plain create is one statement, anything else a transaction. A
   * plain create with an Idempotency-Key stores the key and its answer in that statement (when the answer is
   * the statement's text as it is); a key stored already makes it write nothing.
   */
  async createJson(body: unknown): Promise<JsonText> {
    const input = readWriteBody(this.def, body, false);
    const pin = needsNormalising(this.def) ? undefined : untouchedKeyedRequest();
    const alone = await this.writer.createAlone(
      pin ? this.unpinned : this.sql,
      RequestContext.companyUuid(),
      input,
      this.listeners,
      pin?.keyed,
    );
    if (alone === KEY_TAKEN) await pin!.taken();
    else if (alone !== undefined) {
      if (pin) pin.storedInStatement = true;
      return this.json(alone);
    }
    return this.json(JSON.stringify(await this.transaction((tx) => this.writer.createIn(tx, input))));
  }

  async update(uuid: string, body: unknown): Promise<Record_> {
    return (await this.updateJson(uuid, body)).value();
  }

  /**
   * update() as JSON text, for the route. Every update writes the record's columns with one statement
   * (updateInOneStatement): on its own for a plain update whose record no other write holds, otherwise in a
   * transaction around its nested writes and hooks.
   */
  async updateJson(uuid: string, body: unknown): Promise<JsonText> {
    const input = readWriteBody(this.def, body, true);
    const alone = await this.writer.updateAlone(
      this.sql,
      RequestContext.companyUuid(),
      uuid,
      input,
      this.listeners,
    );
    if (alone !== undefined) return this.json(alone);
    return this.json(JSON.stringify(await this.transaction((tx) => this.writer.updateIn(tx, uuid, input))));
  }

  async remove(uuid: string) {
    return this.transaction(async (tx) => {
      const row = await this.reader.lockIn(tx, uuid);
      const [record] = await this.writer.deleteAllIn(tx, this.def, [row]);
      return this.wrap(record);
    });
  }

  /**
   * Runs `work` in one transaction scoped to the caller's company; changes and domain events recorded
   * on the transaction are handed to the write listeners (the webhook outbox) before it commits.
   */
  transaction<T>(work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    return runWriteTransaction(this.dataSource, this.listeners, this.declared, work);
  }

  /** The caller's record as stored, locked until the transaction ends; 404 if there is none. */
  lockIn(tx: WriteTransaction, uuid: string): Promise<ResourceRow> {
    return this.reader.lockIn(tx, uuid);
  }

  /** The caller's record as served (embedded relationships included), read inside the transaction. */
  findIn(tx: WriteTransaction, uuid: string): Promise<Record_ | undefined> {
    return this.reader.findIn(tx, uuid);
  }

  /** The caller's records whose `column` equals `value`, as stored, locked until the transaction ends. */
  findAllIn(tx: WriteTransaction, column: string, value: unknown): Promise<ResourceRow[]> {
    return this.reader.findAllIn(tx, column, value);
  }

  /**
   * Clears `column` on the caller's records that point at `uuids`, each as an update (hooks run, `.updated`
   * is emitted with the change), so the foreign key's ON DELETE SET NULL never changes a record silently.
   */
  unlinkIn(tx: WriteTransaction, column: string, uuids: string[]): Promise<void> {
    return this.writer.unlinkIn(tx, column, uuids);
  }

  /**
   * Sets columns of the caller's record with one `UPDATE … RETURNING`: no read before, no hooks, no diff
   * and no `.updated` event — for hot paths that emit their own event (e.g. a driver's location).
   * `values` must already be validated. Returns the record as served; 404 if there is none.
   */
  setColumnsIn(tx: WriteTransaction, uuid: string, values: Record_): Promise<Record_> {
    return this.writer.setColumnsIn(tx, uuid, values);
  }

  createIn(tx: WriteTransaction, input: WriteInput): Promise<Record_> {
    return this.writer.createIn(tx, input);
  }

  updateIn(tx: WriteTransaction, before: ResourceRow, input: WriteInput): Promise<Record_> {
    return this.writer.updateIn(tx, before, input);
  }

  /** Rows → wire records: internal columns dropped, embedded relationships loaded with one query each. */
  serialize(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    rows: ResourceRow[],
    knownEmpty?: (embed: EmbedInfo) => boolean,
  ): Promise<Record_[]> {
    return serialize(sql, def, company, rows, knownEmpty);
  }

  private wrap(record: Record_) {
    return { [this.def.keys.singular]: record };
  }

  /** A record's JSON text as a response body (see needsNormalising). */
  private json(record: string): JsonText {
    return underKey(
      this.def.keys.singular,
      needsNormalising(this.def) ? JSON.stringify(JSON.parse(record)) : record,
    );
  }
}
