import { ATTRIBUTES_POINTER } from '../common/pointer';
import { WriteInput } from './body-reader';
import { NestedWriter, NestedWrites, RowUpdate } from './nested-writes';
import { Changes, diff, pick, updatedChange } from './record-changes';
import type {
  ResourceChange,
  ResourceDefinition,
  ResourceHooks,
  ResourceRow,
  WriteTransaction,
} from './resource-definition';
import { notFound } from './resource-errors';
import { checkReferences } from './reference-checks';
import { serialize, serializeOne, strip } from './resource-serializer';
import type { KeyedWrite } from '../database/pinned-connection';
import {
  IDEMPOTENCY_KEY_TAKEN,
  LOCK_NOT_AVAILABLE,
  insertInOneStatement,
  updateInOneStatement,
} from './one-statement-sql';
import type { WriteListener } from './write-listener';
import { explainDbError } from './resource-errors';
import { scopedSql } from './resource-sql';
import type { Sql } from './sql-runner';
import { UUID } from './sql';

type Record_ = Record<string, unknown>;

/** What createAlone answers when the request's Idempotency-Key is stored already (nothing was written). */
export const KEY_TAKEN = Symbol('idempotency key taken');

/** A resource whose `column` refers to another resource's records, and is set to NULL when they are deleted. */
export interface Referrer {
  service: { unlinkIn(tx: WriteTransaction, column: string, uuids: string[]): Promise<void> };
  column: string;
}

/**
 * The writes of one resource, and of the resources written through its embedded relationships: every
 * record, top-level or nested, goes through the same reference checks, hooks, diff and recorded change.
 */
export class ResourceWriter implements NestedWriter {
  private readonly nested = new NestedWrites(this);

  constructor(
    readonly def: ResourceDefinition,
    readonly hooksOf: (def: ResourceDefinition) => ResourceHooks | undefined,
    private readonly referrersOf: (def: ResourceDefinition) => Referrer[],
  ) {}

  /**
   * A plain write — no nested object, no reference given, no hook of the resource — whose every listener
   * can record it inside a statement (WriteListener.inStatement) is one statement committed on its own.
   * These return its record; undefined, with nothing written, when the write needs a transaction.
   */
  async createAlone(
    sql: Sql,
    company: string,
    input: WriteInput,
    listeners: WriteListener[],
    keyed?: KeyedWrite,
  ): Promise<string | typeof KEY_TAKEN | undefined> {
    if (!this.alone(input, listeners)) return undefined;
    try {
      return (await insertInOneStatement(sql, this.def, company, input.values, listeners, keyed))?.record;
    } catch (error) {
      if (keyed && (error as { constraint?: string }).constraint === IDEMPOTENCY_KEY_TAKEN) return KEY_TAKEN;
      throw explainDbError(error);
    }
  }

  /**
   * See createAlone: the record's JSON text; also undefined when another write holds the record (the
   * transaction, updateIn, waits for it).
   */
  async updateAlone(sql: Sql, company: string, uuid: string, input: WriteInput, listeners: WriteListener[]) {
    if (!this.alone(input, listeners) || !Object.keys(input.values).length) return undefined;
    try {
      const written = await this.explained(
        updateInOneStatement(sql, this.def, company, uuid, input.values, listeners),
      );
      if (!written) throw notFound(this.def, uuid);
      return written.record;
    } catch (error) {
      if ((error as { code?: string }).code === LOCK_NOT_AVAILABLE) return undefined;
      throw error;
    }
  }

  private alone({ values, toOne, toMany }: WriteInput, listeners: WriteListener[]): boolean {
    const hooks = this.hooksOf(this.def);
    return (
      !toOne.size &&
      !toMany.size &&
      !this.def.references.some((reference) => values[reference.column] != null) &&
      !hooks?.beforeCreate &&
      !hooks?.beforeUpdate &&
      !hooks?.afterWrite &&
      listeners.every((listener) => listener.inStatement)
    );
  }

  private async explained<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (error) {
      throw explainDbError(error);
    }
  }

  async createIn(tx: WriteTransaction, input: WriteInput): Promise<Record_> {
    const values = { ...input.values };
    await this.nested.applyToOne(tx, input, values);
    await checkReferences(tx, this.def, [{ values, pointer: ATTRIBUTES_POINTER }]);
    await this.hooksOf(this.def)?.beforeCreate?.(tx, values);
    const row = await scopedSql.insert(tx.sql, this.def, tx.companyUuid, values);
    for (const [embed, items] of input.toMany) await this.nested.syncChildren(tx, embed, row, items, []);
    // A record created just now has no children but those this write gave it: no need to look.
    const [record] = await serialize(
      tx.sql,
      this.def,
      tx.companyUuid,
      [row],
      (embed) => !input.toMany.has(embed),
    );
    await this.recordChange(tx, { resource: this.def, action: 'created', record });
    return record;
  }

  /**
   * An update in a transaction: the record locked (unless `before`, its locked row, is given), its to-one
   * objects and reference checks, its `beforeUpdate` hook and its children first, then its own columns
   * written and the record read back by the statement every update runs (updateInOneStatement), and the
   * change recorded with what its children's sync changed.
   */
  async updateIn(tx: WriteTransaction, target: string | ResourceRow, input: WriteInput): Promise<Record_> {
    const before =
      typeof target === 'string'
        ? await scopedSql.findOne(tx.sql, this.def, tx.companyUuid, target, true)
        : target;
    if (!before) throw notFound(this.def, target as string);
    const values = { ...input.values };
    await this.nested.applyToOne(tx, input, values);
    await checkReferences(tx, this.def, [{ values, pointer: ATTRIBUTES_POINTER }]);
    await this.hooksOf(this.def)?.beforeUpdate?.(tx, before, values);
    const childChanges: Changes = {};
    for (const [embed, items] of input.toMany) {
      const child = embed.target();
      const existing = await scopedSql.whereIn(tx.sql, child, tx.companyUuid, embed.column, [before.uuid]);
      if (await this.nested.syncChildren(tx, embed, before, items, existing)) {
        childChanges[embed.property] = [existing.map((row) => strip(child, row)), undefined];
      }
    }
    const uuid = before.uuid as string;
    const written = Object.keys(values).length
      ? await updateInOneStatement(tx.sql, this.def, tx.companyUuid, uuid, values, 'inTransaction')
      : undefined;
    const record = written
      ? (JSON.parse(written.record) as Record_)
      : await serializeOne(tx.sql, this.def, tx.companyUuid, before);
    const change = updatedChange(this.def, record, { ...(written?.changes ?? {}), ...childChanges });
    if (change) await this.recordChange(tx, change);
    return record;
  }

  /**
   * Updates records of `def` with one statement whatever their number: references checked, `beforeUpdate`
   * run, and only the columns that differ from the stored row written (none: no statement, no change).
   * Returns each record's row (the stored one when unchanged) and `{column: [before, written]}`.
   */
  async updateRows(
    tx: WriteTransaction,
    def: ResourceDefinition,
    updates: RowUpdate[],
  ): Promise<{ before: ResourceRow; row: ResourceRow; changes: Changes }[]> {
    if (!updates.length) return [];
    await checkReferences(tx, def, updates);
    const hooks = this.hooksOf(def);
    if (hooks?.beforeUpdate) {
      for (const { before, values } of updates) await hooks.beforeUpdate(tx, before, values);
    }
    const diffs = updates.map(({ before, values }) => ({ before, values, changes: diff(before, values) }));
    const changed = diffs
      .filter(({ changes }) => Object.keys(changes).length > 0)
      .map(({ before, values, changes }) => ({
        uuid: before.uuid as string,
        values: pick(values, Object.keys(changes)),
      }));
    const rows =
      changed.length === 1
        ? [await scopedSql.update(tx.sql, def, tx.companyUuid, changed[0].uuid, changed[0].values)]
        : await scopedSql.updateMany(tx.sql, def, tx.companyUuid, changed);
    const byUuid = new Map(rows.map((row) => [row.uuid as string, row]));
    return diffs.map(({ before, changes }) => ({
      before,
      row: byUuid.get(before.uuid as string) ?? before,
      changes,
    }));
  }

  /** No read before, no hooks, no diff, no `.updated` event: for hot paths that emit their own. */
  async setColumnsIn(tx: WriteTransaction, uuid: string, values: Record_): Promise<Record_> {
    const row = UUID.test(uuid)
      ? await scopedSql.update(tx.sql, this.def, tx.companyUuid, uuid, values)
      : undefined;
    if (!row) throw notFound(this.def, uuid);
    return serializeOne(tx.sql, this.def, tx.companyUuid, row);
  }

  /** Each record an update of its own, so ON DELETE SET NULL never changes a record silently. */
  async unlinkIn(tx: WriteTransaction, column: string, uuids: string[]): Promise<void> {
    const rows = await scopedSql.whereIn(tx.sql, this.def, tx.companyUuid, column, uuids, true);
    for (const row of rows) {
      await this.updateIn(tx, row, { values: { [column]: null }, toOne: new Map(), toMany: new Map() });
    }
  }

  /**
   * Deletes records of one resource with a constant number of statements: hooks run per record, records
   * pointing at them are unlinked, and each record (and each of its embedded children) emits `.deleted`.
   */
  async deleteAllIn(tx: WriteTransaction, def: ResourceDefinition, rows: ResourceRow[]): Promise<Record_[]> {
    const hooks = this.hooksOf(def);
    if (hooks?.beforeDelete) for (const row of rows) await hooks.beforeDelete(tx, row);
    const uuids = rows.map((row) => row.uuid as string);
    for (const { service, column } of this.referrersOf(def)) await service.unlinkIn(tx, column, uuids);
    const records = await serialize(tx.sql, def, tx.companyUuid, rows);
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
  async recordChange(tx: WriteTransaction, change: ResourceChange): Promise<void> {
    tx.changes.push(change);
    await this.hooksOf(change.resource)?.afterWrite?.(tx, change);
  }
}
