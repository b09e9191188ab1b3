import { ApiError } from '../common/api-error';
import { NestedItem, WriteInput } from './body-reader';
import type {
  EmbedInfo,
  ResourceChange,
  ResourceDefinition,
  ResourceHooks,
  ResourceRow,
  WriteTransaction,
} from './resource-definition';
import { PointedValues, checkReferences } from './reference-checks';
import { serialize, serializeOne } from './resource-serializer';
import { scopedSql } from './resource-sql';
import { Changes, updatedChange } from './record-changes';

/** One record's update: the stored row, the values to write, and where in the body they came from. */
export interface RowUpdate extends PointedValues {
  before: ResourceRow;
}

/** What nested writes need of the writer of the resource they belong to (ResourceWriter). */
export interface NestedWriter {
  readonly def: ResourceDefinition;
  hooksOf(def: ResourceDefinition): ResourceHooks | undefined;
  recordChange(tx: WriteTransaction, change: ResourceChange): Promise<void>;
  updateRows(
    tx: WriteTransaction,
    def: ResourceDefinition,
    updates: RowUpdate[],
  ): Promise<{ before: ResourceRow; row: ResourceRow; changes: Changes }[]>;
  deleteAllIn(tx: WriteTransaction, def: ResourceDefinition, rows: ResourceRow[]): Promise<unknown>;
}

/**
 * Records written through an embedded relationship of the writer's resource: a to-one object linked or
 * created, the children of a to-many made exactly what the body lists.
 */
export class NestedWrites {
  constructor(private readonly writer: NestedWriter) {}

  /** An embedded to-one object: with a uuid it links (and updates) that record, without one it creates it. */
  async applyToOne(tx: WriteTransaction, input: WriteInput, values: Record<string, unknown>): Promise<void> {
    for (const [embed, item] of input.toOne) {
      if (item === null) {
        values[embed.column] = null;
        continue;
      }
      const target = embed.target();
      if (item.uuid === undefined) {
        await checkReferences(tx, target, [item]);
        await this.writer.hooksOf(target)?.beforeCreate?.(tx, item.values);
        const row = await scopedSql.insert(tx.sql, target, tx.companyUuid, item.values);
        await this.writer.recordChange(tx, {
          resource: target,
          action: 'created',
          record: await serializeOne(tx.sql, target, tx.companyUuid, row),
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
      const change = (await this.updateChildren(tx, target, [{ child: existing, item }])).get(item);
      if (change) await this.writer.recordChange(tx, change);
      values[embed.column] = existing.uuid;
    }
  }

  /**
   * Makes the children of `parent` exactly `items`: update by uuid, create the new, delete the rest — with a
   * constant number of statements whatever the number of children (one reference check per column, one
   * INSERT, one UPDATE, one DELETE, and the reads that serialise them). Hooks still run, and each child
   * change is still its own event, recorded in the order of `items`, deletions last.
   */
  async syncChildren(
    tx: WriteTransaction,
    embed: EmbedInfo,
    parent: ResourceRow,
    items: NestedItem[],
    existing: ResourceRow[],
  ): Promise<boolean> {
    const target = embed.target();
    const current = new Map(existing.map((child) => [child.uuid as string, child]));
    const kept = new Set<string>();
    const updates: { child: ResourceRow; item: NestedItem }[] = [];
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
          `${item.uuid} is not a ${target.name} of this ${this.writer.def.name}.`,
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
      if (change) await this.writer.recordChange(tx, change);
    }
    const removed = existing.filter((child) => !kept.has(child.uuid));
    if (removed.length) await this.writer.deleteAllIn(tx, target, removed);
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
    await checkReferences(
      tx,
      target,
      items.map((item, i) => ({ values: values[i], pointer: item.pointer })),
      parentColumn,
    );
    const hooks = this.writer.hooksOf(target);
    if (hooks?.beforeCreate) for (const value of values) await hooks.beforeCreate(tx, value);
    const rows = await scopedSql.insertMany(tx.sql, target, tx.companyUuid, values);
    const records = await serialize(tx.sql, target, tx.companyUuid, rows);
    items.forEach((item, i) =>
      changes.set(item, { resource: target, action: 'created', record: records[i] }),
    );
    return changes;
  }

  /** Updates children like any record (one statement for all); returns the `.updated` change of each. */
  private async updateChildren(
    tx: WriteTransaction,
    target: ResourceDefinition,
    pairs: { child: ResourceRow; item: NestedItem }[],
  ): Promise<Map<NestedItem, ResourceChange>> {
    const written = await this.writer.updateRows(
      tx,
      target,
      pairs.map(({ child, item }) => ({ before: child, values: item.values, pointer: item.pointer })),
    );
    const changed = written
      .map((write, i) => ({ ...write, item: pairs[i].item }))
      .filter(({ changes }) => Object.keys(changes).length > 0);
    const records = await serialize(
      tx.sql,
      target,
      tx.companyUuid,
      changed.map(({ row }) => row),
    );
    const result = new Map<NestedItem, ResourceChange>();
    changed.forEach(({ item, changes }, i) => result.set(item, updatedChange(target, records[i], changes)!));
    return result;
  }
}
