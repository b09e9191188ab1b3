import { DataSource, EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { DEFAULT_VARCHAR_LENGTH } from '../resources/entity-dto';

// An entity column as the DDL of a generated migration writes it.

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

export function sqlType(dataSource: DataSource, column: ColumnMetadata): string {
  if (column.enum) {
    const values = column.enum.map(String);
    const length = Math.max(16, ...values.map((value) => value.length));
    return `varchar(${length}) CHECK ("${column.databaseName}" IN (${values.map(quote).join(', ')}))`;
  }
  const type = dataSource.driver.normalizeType(column);
  const precision = column.precision != null ? `(${column.precision})` : '';
  if (type === 'timestamp with time zone') return `timestamptz${precision}`;
  if (type === 'timestamp without time zone') return `timestamp${precision}`;
  if (type === 'character varying') return `varchar(${column.length || DEFAULT_VARCHAR_LENGTH})`;
  if (type === 'character') return `char(${column.length || 1})`;
  return type;
}

export function defaultSql(column: ColumnMetadata): string | undefined {
  const value: unknown = column.default;
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'function') return String((value as () => unknown)());
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return quote(JSON.stringify(value));
}

/**
 * The SQL definition of one column, with its reference (ON DELETE from the relation) if it has one.
 * `nullable` leaves NOT NULL out (set after a backfill).
 */
export function columnSql(
  dataSource: DataSource,
  metadata: EntityMetadata,
  column: ColumnMetadata,
  nullable = column.isNullable,
): string {
  const parts = [`"${column.databaseName}"`, sqlType(dataSource, column)];
  if (!nullable) parts.push('NOT NULL');
  const fallback = defaultSql(column);
  if (fallback !== undefined) parts.push(`DEFAULT ${fallback}`);
  const relation = metadata.manyToOneRelations.find(
    (r) => r.joinColumns[0]?.databaseName === column.databaseName,
  );
  if (relation) {
    const target = relation.inverseEntityMetadata;
    const key = relation.joinColumns[0].referencedColumn?.databaseName ?? 'uuid';
    parts.push(`REFERENCES "${target.tableName}" ("${key}") ON DELETE ${relation.onDelete ?? 'NO ACTION'}`);
  }
  return parts.join(' ');
}
