import type { EmbedInfo, ResourceDefinition, ResourceRow } from './resource-definition';
import { scopedSql } from './resource-sql';
import type { Sql } from './sql-runner';

type Record_ = Record<string, unknown>;

/** A row as served: `id` repeats `uuid` so generic clients (Ember Data's default primary key) work unchanged. */
export function strip(def: ResourceDefinition, row: ResourceRow): Record_ {
  const record: Record_ = { id: row.uuid };
  for (const column of def.columns.keys()) record[column] = row[column];
  return record;
}

/** Rows → wire records: internal columns dropped, embedded relationships loaded with one query each. */
export async function serialize(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  rows: ResourceRow[],
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

export async function serializeOne(
  sql: Sql,
  def: ResourceDefinition,
  company: string,
  row: ResourceRow,
): Promise<Record_> {
  // With embeds, reading the record back whole is one statement instead of one per relationship.
  if (def.embeds.length) {
    const record = await scopedSql.findRecord(sql, def, company, row.uuid);
    if (record !== undefined) return JSON.parse(record) as Record_;
  }
  return (await serialize(sql, def, company, [row]))[0];
}
