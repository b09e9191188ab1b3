import type { EventEmitter } from 'node:events';
import { DataSource, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { poolOf } from '../database/typeorm-pg';
import { ApiError, ErrorObject, errorObject } from '../http/api-error';
import { ATTRIBUTES_POINTER, attributePointer } from '../http/pointer';
import { RequestContext } from '../tenancy/request-context';
import { NestedItem, WriteInput, readWriteBody } from './body-reader';
import { encodeCursor } from './list-cursor';
import { parseListQuery } from './list-query';
import { ResourceChange, WriteListener } from './resource-change';
import { EmbedInfo, ResourceDefinition } from './resource-definition';
import { ResourceHooks } from './resource-hooks';
import { Sql, UUID, scopedSql, sqlOfPool } from './resource-sql';
import { Params } from './sql';
import { DeclaredEvents, WriteTransaction } from './write-transaction';

type Row = Record<string, any>;
type Record_ = Record<string, unknown>;

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date)
    return new Date(a as string).getTime() === new Date(b as string).getTime();
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

/** A resource whose `column` refers to another resource's records, and is set to NULL when they are deleted. */
export interface Referrer {
  service: ResourceService;
  column: string;
}

/** Generic CRUD for one resource: list grammar, embedded relationships, nested writes, tenant scoping. */
export class ResourceService {
  constructor(
    readonly def: ResourceDefinition,
    private readonly dataSource: DataSource,
    private readonly listeners: WriteListener[],
    /** The hooks of a resource (this one, or one written through an embedded relationship). */
    private readonly hooksOf: (def: ResourceDefinition) => ResourceHooks | undefined = () => undefined,
    /** The resources whose column points at a resource with ON DELETE SET NULL (ResourceServices knows them all). */
    private readonly referrersOf: (def: ResourceDefinition) => Referrer[] = () => [],
    /** The custom events `tx.emit` accepts. */
    private readonly declared?: DeclaredEvents,
  ) {}

  private readonly reader: Sql = sqlOfPool(poolOf(this.dataSource));

  // ---- reads ---------------------------------------------------------------------------------

  async list(query: Record<string, unknown>) {
    const company = RequestContext.companyUuid();
    const params = new Params();
    const parsed = parseListQuery(query ?? {}, this.def, params);
    const { limit, offset } = parsed;
    // One row past the page tells whether a next cursor exists.
    const { records, total } = await scopedSql.pageRecords(
      this.reader,
      this.def,
      company,
      parsed,
      params,
      limit + 1,
    );
    const more = records.length > limit;
    if (more) records.pop();
    const last = records[records.length - 1];
    return {
      [this.def.keys.plural]: records,
      meta: {
        total,
        per_page: limit,
        current_page: parsed.cursor ? null : Math.floor(offset / limit) + 1,
        last_page: Math.max(1, Math.ceil(total / limit)),
        from: records.length && !parsed.cursor ? offset + 1 : null,
        to: records.length && !parsed.cursor ? offset + records.length : null,
        next_cursor: more ? encodeCursor(parsed.sort, parsed.sortKeys, last) : null,
      },
    };
  }

  async find(uuid: string) {
    const company = RequestContext.companyUuid();
    const record = await scopedSql.findRecord(this.reader, this.def, company, uuid);
    if (!record) throw ApiError.notFound(`No ${this.def.name} with uuid "${uuid}".`);
    return this.wrap(record);
  }

  // ---- writes --------------------------------------------------------------------------------

  async create(body: unknown) {
    const input = readWriteBody(this.def, body, false);
    return this.transaction(async (tx) => this.wrap(await this.createIn(tx, input)));
  }

  async update(uuid: string, body: unknown) {
    const input = readWriteBody(this.def, body, true);
    return this.transaction(async (tx) => {
      const before = await this.require(tx.sql, tx.companyUuid, uuid, true);
      return this.wrap(await this.updateIn(tx, before, input));
    });
  }

  async remove(uuid: string) {
    return this.transaction(async (tx) => {
      const row = await this.require(tx.sql, tx.companyUuid, uuid, true);
      const [record] = await this.deleteAllIn(tx, this.def, [row]);
      return this.wrap(record);
    });
  }

  /**
   * Runs `work` in one transaction scoped to the caller's company; changes and domain events recorded
   * on the transaction are handed to the write listeners (the webhook outbox) before it commits.
   */
  async transaction<T>(work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    const company = RequestContext.companyUuid();
    const queryRunner = this.dataSource.createQueryRunner();
    await queryRunner.connect();
    // When the connection dies TypeORM releases the runner, and every later call (the next statement, the
    // rollback) throws QueryRunnerAlreadyReleasedError: keep the error that killed it, to report that one.
    let lost: unknown;
    const connection = (queryRunner as unknown as { databaseConnection?: EventEmitter }).databaseConnection;
    const onLost = (error: unknown) => (lost ??= error);
    connection?.on('error', onLost);
    try {
      await queryRunner.startTransaction();
      const tx = new WriteTransaction(queryRunner, company, this.declared);
      const result = await work(tx);
      if (tx.changes.length || tx.events.length) {
        for (const listener of this.listeners)
          await listener.beforeCommit(queryRunner, company, tx.changes, tx.events);
      }
      await queryRunner.commitTransaction();
      return result;
    } catch (error) {
      // A connection that died mid-transaction cannot roll back (PostgreSQL already did): the error that
      // killed it is the one to report, never the rollback's QueryRunnerAlreadyReleasedError.
      if (queryRunner.isTransactionActive) await queryRunner.rollbackTransaction().catch(() => undefined);
      throw this.explain(lost && error instanceof QueryRunnerAlreadyReleasedError ? lost : error);
    } finally {
      connection?.removeListener('error', onLost);
      await queryRunner.release();
    }
  }

  /** The caller's record as stored, locked until the transaction ends; 404 if there is none. */
  async lockIn(tx: WriteTransaction, uuid: string): Promise<Row> {
    return this.require(tx.sql, tx.companyUuid, uuid, true);
  }

  /** The caller's record as served (embedded relationships included), read inside the transaction. */
  async findIn(tx: WriteTransaction, uuid: string): Promise<Record_ | undefined> {
    const row = await scopedSql.findOne(tx.sql, this.def, tx.companyUuid, uuid);
    return row ? this.serializeOne(tx.sql, tx.companyUuid, row) : undefined;
  }

  /** The caller's records whose `column` equals `value`, as stored, locked until the transaction ends. */
  async findAllIn(tx: WriteTransaction, column: string, value: unknown): Promise<Row[]> {
    return scopedSql.whereIn(tx.sql, this.def, tx.companyUuid, column, [value], true);
  }

  /**
   * Clears `column` on the caller's records that point at `uuid`, each as an update (hooks run, `.updated`
   * is emitted with the change), so the foreign key's ON DELETE SET NULL never changes a record silently.
   */
  async unlinkIn(tx: WriteTransaction, column: string, uuids: string[]): Promise<void> {
    const rows = await scopedSql.whereIn(tx.sql, this.def, tx.companyUuid, column, uuids, true);
    for (const row of rows) {
      await this.updateIn(tx, row, { values: { [column]: null }, toOne: new Map(), toMany: new Map() });
    }
  }

  /**
   * Sets columns of the caller's record with one `UPDATE … RETURNING`: no read before, no hooks, no diff
   * and no `.updated` event — for hot paths that emit their own event (e.g. a driver's location).
   * `values` must already be validated. Returns the record as served; 404 if there is none.
   */
  async setColumnsIn(tx: WriteTransaction, uuid: string, values: Record_): Promise<Record_> {
    const row = UUID.test(uuid)
      ? await scopedSql.update(tx.sql, this.def, tx.companyUuid, uuid, values)
      : undefined;
    if (!row) throw ApiError.notFound(`No ${this.def.name} with uuid "${uuid}".`);
    return this.serializeOne(tx.sql, tx.companyUuid, row);
  }

  async createIn(tx: WriteTransaction, input: WriteInput): Promise<Record_> {
    const values = { ...input.values };
    await this.applyToOne(tx, input, values);
    await this.checkReferences(tx, this.def, values, ATTRIBUTES_POINTER);
    await this.hooksOf(this.def)?.beforeCreate?.(tx, values);
    const row = await scopedSql.insert(tx.sql, this.def, tx.companyUuid, values);
    for (const [embed, items] of input.toMany) await this.syncChildren(tx, embed, row, items, []);
    // A record created just now has no children but those this write gave it: no need to look.
    const [record] = await this.serialize(
      tx.sql,
      this.def,
      tx.companyUuid,
      [row],
      (embed) => !input.toMany.has(embed),
    );
    await this.recordChange(tx, { resource: this.def, action: 'created', record });
    return record;
  }

  async updateIn(tx: WriteTransaction, before: Row, input: WriteInput): Promise<Record_> {
    const values = { ...input.values };
    await this.applyToOne(tx, input, values);
    await this.checkReferences(tx, this.def, values, ATTRIBUTES_POINTER);
    await this.hooksOf(this.def)?.beforeUpdate?.(tx, before, values);
    const changes: Record<string, [unknown, unknown]> = {};
    for (const [column, value] of Object.entries(values)) {
      if (!sameValue(before[column], value)) changes[column] = [before[column], value];
    }
    const row = Object.keys(changes).length
      ? await scopedSql.update(
          tx.sql,
          this.def,
          tx.companyUuid,
          before.uuid,
          pick(values, Object.keys(changes)),
        )
      : before;
    for (const [embed, items] of input.toMany) {
      const target = embed.target();
      const existing = await scopedSql.whereIn(tx.sql, target, tx.companyUuid, embed.column, [before.uuid]);
      if (await this.syncChildren(tx, embed, row, items, existing)) {
        changes[embed.property] = [existing.map((child) => strip(target, child)), undefined];
      }
    }
    const record = await this.serializeOne(tx.sql, tx.companyUuid, row);
    for (const embed of input.toMany.keys()) {
      if (changes[embed.property]) changes[embed.property][1] = record[embed.property];
    }
    if (Object.keys(changes).length) {
      for (const column of Object.keys(changes))
        if (this.def.columns.has(column)) changes[column][1] = record[column];
      await this.recordChange(tx, { resource: this.def, action: 'updated', record, changes });
    }
    return record;
  }

  /**
   * Deletes records of one resource with a constant number of statements: hooks run per record, records
   * pointing at them are unlinked, and each record (and each of its embedded children) emits `.deleted`.
   */
  private async deleteAllIn(tx: WriteTransaction, def: ResourceDefinition, rows: Row[]): Promise<Record_[]> {
    const hooks = this.hooksOf(def);
    if (hooks?.beforeDelete) for (const row of rows) await hooks.beforeDelete(tx, row);
    const uuids = rows.map((row) => row.uuid as string);
    for (const { service, column } of this.referrersOf(def)) await service.unlinkIn(tx, column, uuids);
    const records = await this.serialize(tx.sql, def, tx.companyUuid, rows);
    await scopedSql.deleteMany(tx.sql, def, tx.companyUuid, uuids);
    for (const record of records) {
      for (const embed of def.embeds.filter((e) => e.kind === 'many')) {
        for (const child of record[embed.property] as Record_[]) {
          await this.recordChange(tx, { resource: embed.target(), action: 'deleted', record: child });
        }
      }
      await this.recordChange(tx, { resource: def, action: 'deleted', record });
    }
    return records;
  }

  /** Records a change for the outbox and runs its resource's `afterWrite` hook (domain events). */
  private async recordChange(tx: WriteTransaction, change: ResourceChange): Promise<void> {
    tx.changes.push(change);
    await this.hooksOf(change.resource)?.afterWrite?.(tx, change);
  }

  // ---- nested writes -------------------------------------------------------------------------

  /** An embedded to-one object: with a uuid it links (and updates) that record, without one it creates it. */
  private async applyToOne(tx: WriteTransaction, input: WriteInput, values: Record_): Promise<void> {
    for (const [embed, item] of input.toOne) {
      if (item === null) {
        values[embed.column] = null;
        continue;
      }
      const target = embed.target();
      if (item.uuid === undefined) {
        await this.checkReferences(tx, target, item.values, item.pointer);
        await this.hooksOf(target)?.beforeCreate?.(tx, item.values);
        const row = await scopedSql.insert(tx.sql, target, tx.companyUuid, item.values);
        await this.recordChange(tx, {
          resource: target,
          action: 'created',
          record: await this.serializeOne(tx.sql, tx.companyUuid, row, target),
        });
        values[embed.column] = row.uuid;
        continue;
      }
      const existing = await scopedSql.findOne(tx.sql, target, tx.companyUuid, item.uuid, true);
      if (!existing)
        throw ApiError.invalid(
          `${item.pointer}/uuid`,
          `${item.uuid} is not a ${target.name} of your company.`,
        );
      await this.updateChild(tx, target, existing, item);
      values[embed.column] = existing.uuid;
    }
  }

  /**
   * Makes the children of `parent` exactly `items`: update by uuid, create the new, delete the rest — with a
   * constant number of statements whatever the number of children (one reference check per column, one
   * INSERT, one UPDATE, one DELETE, and the reads that serialise them). Hooks still run, and each child
   * change is still its own event, recorded in the order of `items`, deletions last.
   */
  private async syncChildren(
    tx: WriteTransaction,
    embed: EmbedInfo,
    parent: Row,
    items: NestedItem[],
    existing: Row[],
  ) {
    const target = embed.target();
    const current = new Map(existing.map((child) => [child.uuid as string, child]));
    const kept = new Set<string>();
    const updates: { child: Row; item: NestedItem }[] = [];
    const creates: NestedItem[] = [];
    for (const item of items) {
      if (item.uuid === undefined) {
        creates.push(item);
        continue;
      }
      const child = current.get(item.uuid);
      if (!child || kept.has(item.uuid)) {
        throw ApiError.invalid(
          `${item.pointer}/uuid`,
          `${item.uuid} is not a ${target.name} of this ${this.def.name}.`,
        );
      }
      kept.add(item.uuid);
      updates.push({ child, item });
    }
    const updated = await this.updateChildren(tx, target, updates);
    const created = await this.createChildren(tx, target, creates, embed.column, parent.uuid as string);
    // Events in the order the client listed the children.
    for (const item of items) {
      const change = item.uuid === undefined ? created.get(item) : updated.get(item);
      if (change) await this.recordChange(tx, change);
    }
    const removed = existing.filter((child) => !kept.has(child.uuid));
    if (removed.length) await this.deleteAllIn(tx, target, removed);
    return updated.size > 0 || creates.length > 0 || removed.length > 0;
  }

  /** Creates the children of `parentUuid` with one INSERT; returns the `.created` change of each item. */
  private async createChildren(
    tx: WriteTransaction,
    target: ResourceDefinition,
    items: NestedItem[],
    parentColumn: string,
    parentUuid: string,
  ): Promise<Map<NestedItem, ResourceChange>> {
    const changes = new Map<NestedItem, ResourceChange>();
    if (!items.length) return changes;
    const values = items.map((item) => ({ ...item.values, [parentColumn]: parentUuid }));
    await this.checkReferencesOf(
      tx,
      target,
      items.map((item, i) => ({ values: values[i], pointer: item.pointer })),
      parentColumn,
    );
    const hooks = this.hooksOf(target);
    if (hooks?.beforeCreate) for (const value of values) await hooks.beforeCreate(tx, value);
    const rows = await scopedSql.insertMany(tx.sql, target, tx.companyUuid, values);
    const records = await this.serialize(tx.sql, target, tx.companyUuid, rows);
    items.forEach((item, i) =>
      changes.set(item, { resource: target, action: 'created', record: records[i] }),
    );
    return changes;
  }

  /** Updates children with one UPDATE (each with its own changed columns); returns the `.updated` changes. */
  private async updateChildren(
    tx: WriteTransaction,
    target: ResourceDefinition,
    pairs: { child: Row; item: NestedItem }[],
  ): Promise<Map<NestedItem, ResourceChange>> {
    const result = new Map<NestedItem, ResourceChange>();
    if (!pairs.length) return result;
    await this.checkReferencesOf(
      tx,
      target,
      pairs.map(({ item }) => item),
    );
    const hooks = this.hooksOf(target);
    if (hooks?.beforeUpdate) {
      for (const { child, item } of pairs) await hooks.beforeUpdate(tx, child, item.values);
    }
    const diffs = pairs
      .map(({ child, item }) => ({ child, item, changes: diff(child, item.values) }))
      .filter(({ changes }) => Object.keys(changes).length > 0);
    const rows = await scopedSql.updateMany(
      tx.sql,
      target,
      tx.companyUuid,
      diffs.map(({ child, item, changes }) => ({
        uuid: child.uuid as string,
        values: pick(item.values, Object.keys(changes)),
      })),
    );
    const records = await this.serialize(tx.sql, target, tx.companyUuid, rows);
    const byUuid = new Map(records.map((record) => [record.uuid as string, record]));
    for (const { child, item, changes } of diffs) {
      const record = byUuid.get(child.uuid as string)!;
      for (const column of Object.keys(changes)) changes[column][1] = record[column];
      result.set(item, { resource: target, action: 'updated', record, changes });
    }
    return result;
  }

  /** An embedded to-one record given by uuid: updated like any child (hooks, diff, `.updated` if changed). */
  private async updateChild(
    tx: WriteTransaction,
    target: ResourceDefinition,
    child: Row,
    item: NestedItem,
  ): Promise<void> {
    const change = (await this.updateChildren(tx, target, [{ child, item }])).get(item);
    if (change) await this.recordChange(tx, change);
  }

  /** `*_uuid` values must name a record of the caller's company; anything else is a 422, never adopted. */
  private async checkReferences(
    tx: WriteTransaction,
    def: ResourceDefinition,
    values: Record_,
    pointer: string,
    trusted?: string,
  ) {
    await this.checkReferencesOf(tx, def, [{ values, pointer }], trusted);
  }

  /** The same for many records at once: one statement per reference column, whatever their number. */
  private async checkReferencesOf(
    tx: WriteTransaction,
    def: ResourceDefinition,
    items: { values: Record_; pointer: string }[],
    trusted?: string,
  ) {
    const errors: ErrorObject[] = [];
    for (const reference of def.references) {
      if (reference.column === trusted) continue;
      const given = items.filter(({ values }) => values[reference.column] != null);
      if (!given.length) continue;
      const found = await scopedSql.existing(
        tx.sql,
        reference.table,
        reference.scoped ? tx.companyUuid : null,
        given.map(({ values }) => values[reference.column]).filter((v): v is string => typeof v === 'string'),
      );
      for (const { values, pointer } of given) {
        const value = values[reference.column];
        if (typeof value === 'string' && found.has(value.toLowerCase())) continue;
        errors.push(
          errorObject(422, `${reference.column} does not refer to a ${reference.resource} of your company.`, {
            source: { pointer: `${pointer}/${reference.column}` },
          }),
        );
      }
    }
    if (errors.length) throw new ApiError(422, errors);
  }

  // ---- serialisation -------------------------------------------------------------------------

  private wrap(record: Record_) {
    return { [this.def.keys.singular]: record };
  }

  private async require(sql: Sql, company: string, uuid: string, lock = false): Promise<Row> {
    const row = await scopedSql.findOne(sql, this.def, company, uuid, lock);
    if (!row) throw ApiError.notFound(`No ${this.def.name} with uuid "${uuid}".`);
    return row;
  }

  private async serializeOne(sql: Sql, company: string, row: Row, def = this.def): Promise<Record_> {
    // With embeds, reading the record back whole is one statement instead of one per relationship.
    if (def.embeds.length) {
      const record = await scopedSql.findRecord(sql, def, company, row.uuid);
      if (record) return record;
    }
    return (await this.serialize(sql, def, company, [row]))[0];
  }

  /** Rows → wire records: internal columns dropped, embedded relationships loaded with one query each. */
  async serialize(
    sql: Sql,
    def: ResourceDefinition,
    company: string,
    rows: Row[],
    knownEmpty: (embed: EmbedInfo) => boolean = () => false,
  ): Promise<Record_[]> {
    const records = rows.map((row) => strip(def, row));
    for (const embed of def.embeds) {
      const target = embed.target();
      if (embed.kind === 'many' && knownEmpty(embed)) {
        for (const record of records) record[embed.property] = [];
      } else if (embed.kind === 'one') {
        const keys = [...new Set(rows.map((row) => row[embed.column]).filter((key) => key != null))];
        const found = keys.length ? await scopedSql.whereIn(sql, target, company, 'uuid', keys) : [];
        const byUuid = new Map(found.map((row) => [row.uuid, strip(target, row)]));
        records.forEach((record, i) => (record[embed.property] = byUuid.get(rows[i][embed.column]) ?? null));
      } else {
        const keys = rows.map((row) => row.uuid);
        const found = keys.length ? await scopedSql.whereIn(sql, target, company, embed.column, keys) : [];
        const byParent = new Map<string, Record_[]>();
        for (const row of found) {
          const list = byParent.get(row[embed.column]) ?? [];
          list.push(strip(target, row));
          byParent.set(row[embed.column], list);
        }
        records.forEach((record, i) => (record[embed.property] = byParent.get(rows[i].uuid) ?? []));
      }
    }
    return records;
  }

  /** Database errors a client caused become 4xx with a pointer where the column is known. */
  private explain(error: unknown): unknown {
    const db = error as { code?: string; column?: string; constraint?: string };
    if (db.code === '23502' && db.column) {
      return ApiError.invalid(attributePointer(db.column), `${db.column} is required.`);
    }
    return error;
  }
}

/** A row as served: `id` repeats `uuid` so generic clients (Ember Data's default primary key) work unchanged. */
function strip(def: ResourceDefinition, row: Row): Record_ {
  const record: Record_ = { id: row.uuid };
  for (const column of def.columns.keys()) record[column] = row[column];
  return record;
}

/** `{column: [before, after]}` of the values that differ from the row. */
function diff(row: Row, values: Record_): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [column, value] of Object.entries(values)) {
    if (!sameValue(row[column], value)) changes[column] = [row[column], value];
  }
  return changes;
}

function pick(values: Record_, keys: string[]): Record_ {
  return Object.fromEntries(keys.map((key) => [key, values[key]]));
}
