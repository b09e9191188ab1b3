import { DataSource, EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ExtensionError } from '../extensions/extension-error';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { SDK_PACKAGE } from '../extensions/shared-modules';
import { DEFAULT_VARCHAR_LENGTH } from '../resources/entity-dto';
import {
  ListIndex,
  createIndexSql,
  declaredListIndexes,
  dropIndexSql,
  isIndexDefinition,
} from '../resources/list-indexes';
import { resourceModel } from '../resources/resource-model.decorator';

/** One place where an entity and the migrated database disagree. */
export interface SchemaProblem {
  extension: string;
  /** `resource "warehouse"` or `entity ApiKey`. */
  where: string;
  table: string;
  /** The entity property, when the problem is one column's. */
  field?: string;
  kind: 'table' | 'column' | 'type' | 'nullable' | 'index';
  message: string;
  /** kind 'index': the list index (sort or search) the declaration asks for and the table lacks. */
  index?: ListIndex;
}

/** Type families PostgreSQL converts between without loss for our purposes (an enum is stored as text). */
function family(type: string): string {
  const t = type.toLowerCase();
  const text = ['character varying', 'varchar', 'text', 'character', 'char', 'enum', 'simple-enum'];
  if (text.includes(t) || t === 'user-defined') return 'text';
  if (['integer', 'int', 'int4', 'smallint', 'int2', 'bigint', 'int8'].includes(t)) return 'integer';
  if (['double precision', 'real', 'numeric', 'decimal', 'float', 'float4', 'float8'].includes(t))
    return 'number';
  if (t.startsWith('timestamp')) return 'timestamp';
  if (t === 'json' || t === 'jsonb') return 'json';
  return t;
}

interface StoredColumn {
  type: string;
  nullable: boolean;
}

async function storedColumns(
  dataSource: DataSource,
  tables: string[],
): Promise<Map<string, Map<string, StoredColumn>>> {
  const rows: { table_name: string; column_name: string; data_type: string; is_nullable: string }[] =
    await dataSource.query(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ANY($1)`,
      [tables],
    );
  const stored = new Map<string, Map<string, StoredColumn>>();
  for (const row of rows) {
    const columns = stored.get(row.table_name) ?? new Map<string, StoredColumn>();
    columns.set(row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' });
    stored.set(row.table_name, columns);
  }
  return stored;
}

async function storedIndexes(dataSource: DataSource, tables: string[]): Promise<Map<string, string[]>> {
  const rows: { tablename: string; indexdef: string }[] = await dataSource.query(
    `SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1)`,
    [tables],
  );
  const stored = new Map<string, string[]>();
  for (const row of rows) stored.set(row.tablename, [...(stored.get(row.tablename) ?? []), row.indexdef]);
  return stored;
}

/** The list indexes (sort and search, see list-indexes.ts) a resource entity's declaration asks for. */
export function entityListIndexes(dataSource: DataSource, metadata: EntityMetadata): ListIndex[] {
  const model = resourceModel(metadata.target);
  if (!model) return [];
  return declaredListIndexes(metadata, model, (column) => String(dataSource.driver.normalizeType(column)));
}

function ownerOf(manifests: ExtensionManifest[]): Map<unknown, string> {
  const owner = new Map<unknown, string>();
  for (const manifest of manifests) for (const entity of manifest.entities) owner.set(entity, manifest.name);
  return owner;
}

function describe(metadata: EntityMetadata): string {
  const model = resourceModel(metadata.target);
  return model ? `resource "${model.name}"` : `entity ${metadata.name}`;
}

/**
 * Compares every loaded entity with the database the data source is connected to: tables, columns,
 * type families and (with `nullability`) NOT NULL. Only what entities declare is compared; columns a
 * table has beyond its entity's (maintained by SQL of the library itself) are not problems.
 */
export async function compareSchema(
  dataSource: DataSource,
  manifests: ExtensionManifest[],
  {
    nullability = true,
    indexes = true,
    extension,
  }: { nullability?: boolean; indexes?: boolean; extension?: string } = {},
): Promise<SchemaProblem[]> {
  const owner = ownerOf(manifests);
  const metadatas = dataSource.entityMetadatas.filter(
    (metadata) => extension === undefined || owner.get(metadata.target) === extension,
  );
  const stored = await storedColumns(
    dataSource,
    metadatas.map((metadata) => metadata.tableName),
  );
  const indexDefs = indexes
    ? await storedIndexes(dataSource, [
        ...new Set(
          metadatas.flatMap((metadata) => [
            metadata.tableName,
            ...entityListIndexes(dataSource, metadata).map((index) => index.table),
          ]),
        ),
      ])
    : new Map<string, string[]>();
  const problems: SchemaProblem[] = [];
  for (const metadata of metadatas) {
    const base = {
      extension: owner.get(metadata.target) ?? '?',
      where: describe(metadata),
      table: metadata.tableName,
    };
    const columns = stored.get(metadata.tableName);
    if (!columns) {
      problems.push({
        ...base,
        kind: 'table',
        message: `table "${metadata.tableName}" does not exist in the database: its migration is missing, not listed in the extension's \`migrations\`, or not run yet (npm run migrate)`,
      });
      continue;
    }
    for (const column of metadata.columns) {
      const at = { ...base, field: column.propertyName };
      const name = `${metadata.tableName}.${column.databaseName}`;
      const found = columns.get(column.databaseName);
      const declared = dataSource.driver.normalizeType(column);
      if (!found) {
        problems.push({
          ...at,
          kind: 'column',
          message: `column ${name} does not exist in the database: add a migration (npm run cli -- migration:generate ${base.extension} <Name>) and list it in the extension's \`migrations\``,
        });
      } else if (family(declared) !== family(found.type)) {
        problems.push({
          ...at,
          kind: 'type',
          message: `column ${name} is ${found.type} in the database but the entity declares ${declared}`,
        });
      } else if (nullability && !column.isPrimary && found.nullable !== column.isNullable) {
        problems.push({
          ...at,
          kind: 'nullable',
          message: `column ${name} is ${found.nullable ? 'nullable' : 'NOT NULL'} in the database but the entity declares it ${column.isNullable ? 'nullable: true' : 'not nullable'}`,
        });
      }
    }
    if (!indexes) continue;
    for (const index of entityListIndexes(dataSource, metadata)) {
      // A missing column is its own problem; generating it adds its indexes too.
      if (
        index.columns.some((column) => !columns.has(column)) ||
        (indexDefs.get(index.table) ?? []).some((def) => isIndexDefinition(def, index))
      )
        continue;
      problems.push({
        ...base,
        field: index.column,
        kind: 'index',
        index,
        message: `index ${index.name} (${index.method} (${index.keys})) does not exist on ${index.table}: the column is declared ${index.kind === 'sort' ? 'sortable' : 'searchable'}, and without it every list page ${index.kind === 'sort' ? 'sorted by it' : 'searching it'} reads all the company's rows; add a migration (npm run cli -- migration:generate ${base.extension} <Name>)`,
      });
    }
  }
  return problems;
}

/** The line of a problem, naming extension, resource and field. */
export function problemLine(problem: SchemaProblem): string {
  return problemError(problem).message;
}

export function problemError(problem: SchemaProblem): ExtensionError {
  const field = problem.field ? `, field "${problem.field}"` : '';
  return new ExtensionError(problem.extension, `${problem.where}${field}`, problem.message);
}

// ---- generation -------------------------------------------------------------------------------------

const BASE_COLUMNS = ['id', 'uuid', 'company_uuid', 'created_at', 'updated_at'];

const quote = (value: string) => `'${value.replace(/'/g, "''")}'`;

function sqlType(dataSource: DataSource, column: ColumnMetadata): string {
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

function defaultSql(column: ColumnMetadata): string | undefined {
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
function columnSql(
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

/** SQL written into a template literal of the migration's source. */
const inTemplate = (sql: string) => sql.replace(/[`\\$]/g, '\\$&');

function indexStatement(index: ListIndex): string {
  return `await queryRunner.query('${createIndexSql(index)}');`;
}

/** A NOT NULL column the generated migration could not add or constrain on a table that may have rows. */
export interface UnfilledColumn {
  table: string;
  column: string;
  /** true: a new column (ADD COLUMN … NOT NULL); false: an existing one becoming NOT NULL. */
  added: boolean;
}

/**
 * generateMigration refuses, naming each column, when the migration would make a column NOT NULL on an
 * existing table without saying what its existing rows hold: PostgreSQL refuses it on the first table that
 * has rows, in production rather than in development, where tables are often empty.
 */
export class UnfilledColumnsError extends Error {
  constructor(readonly columns: UnfilledColumn[]) {
    super(
      columns
        .map(({ table, column, added }) =>
          added
            ? `column ${table}.${column} is NOT NULL without a default, and "${table}" already exists: ADD COLUMN … NOT NULL fails on a table with rows. Give the column a default (@Column({ …, default: … })), make it nullable, or fill existing rows: --backfill ${column}=<SQL value>`
            : `column ${table}.${column} becomes NOT NULL without a default, and "${table}" already exists: SET NOT NULL fails while a row holds NULL. Give the column a default, or fill those rows: --backfill ${column}=<SQL value>`,
        )
        .join('\n'),
    );
  }
}

export interface GenerateOptions {
  /**
   * SQL values for the existing rows of NOT NULL columns without a default, by column name (or
   * `table.column`): the migration adds the column nullable, fills it, then sets NOT NULL.
   */
  backfill?: Record<string, string>;
}

export interface GeneratedMigration {
  className: string;
  fileName: string;
  source: string;
}

/**
 * The migration that brings the database (already migrated) to the entities of `extension`: a new table
 * per new entity (with `createResourceTable` for resources), `ADD COLUMN` per new column, type and
 * NOT NULL changes, and the list indexes (sort and search) its resources declare; each with its `down`. Undefined when they already agree.
 */
export async function generateMigration(
  dataSource: DataSource,
  manifests: ExtensionManifest[],
  extension: string,
  name: string,
  timestamp = Date.now(),
  { backfill = {} }: GenerateOptions = {},
): Promise<GeneratedMigration | undefined> {
  const problems = await compareSchema(dataSource, manifests, { extension });
  if (!problems.length) return undefined;
  const unfilled: UnfilledColumn[] = [];
  const fillOf = (table: string, column: string) =>
    Object.hasOwn(backfill, `${table}.${column}`)
      ? backfill[`${table}.${column}`]
      : Object.hasOwn(backfill, column)
        ? backfill[column]
        : undefined;
  const metadataOf = (table: string) => dataSource.entityMetadatas.find((m) => m.tableName === table)!;
  const up: string[] = [];
  const down: string[] = [];
  let usesCreateResourceTable = false;
  // A search index reads several columns: adding two of them writes it once.
  const written = new Set<string>();
  const writeIndex = (index: ListIndex) => {
    if (written.has(index.name)) return;
    written.add(index.name);
    up.push(indexStatement(index));
  };
  for (const problem of problems) {
    const metadata = metadataOf(problem.table);
    const table = `"${metadata.tableName}"`;
    if (problem.kind === 'table') {
      const isResource = BASE_COLUMNS.every((base) => metadata.columns.some((c) => c.databaseName === base));
      const own = metadata.columns.filter((c) => !isResource || !BASE_COLUMNS.includes(c.databaseName));
      const definitions = own.map((column) => columnSql(dataSource, metadata, column));
      if (isResource) {
        usesCreateResourceTable = true;
        up.push(
          `await createResourceTable(\n      queryRunner,\n      '${metadata.tableName}',\n      \`${definitions.join(',\n       ')}\`,\n    );`,
        );
      } else {
        up.push(
          `await queryRunner.query(\`CREATE TABLE ${table} (\n      ${definitions.join(',\n      ')}\n    )\`);`,
        );
      }
      for (const index of entityListIndexes(dataSource, metadata)) writeIndex(index);
      down.unshift(`await queryRunner.query('DROP TABLE ${table}');`);
      continue;
    }
    if (problem.kind === 'index') {
      writeIndex(problem.index!);
      down.unshift(`await queryRunner.query('${dropIndexSql(problem.index!)}');`);
      continue;
    }
    const column = metadata.columns.find((c) => c.propertyName === problem.field)!;
    const quoted = `"${column.databaseName}"`;
    const fill = fillOf(metadata.tableName, column.databaseName);
    if (problem.kind === 'column') {
      const unfilledNotNull = !column.isNullable && defaultSql(column) === undefined;
      if (unfilledNotNull && fill === undefined) {
        unfilled.push({ table: metadata.tableName, column: column.databaseName, added: true });
        continue;
      }
      up.push(
        `await queryRunner.query(\`ALTER TABLE ${table} ADD COLUMN ${columnSql(dataSource, metadata, column, column.isNullable || unfilledNotNull)}\`);`,
      );
      if (unfilledNotNull) {
        up.push(
          `await queryRunner.query(\`UPDATE ${table} SET ${quoted} = ${inTemplate(fill!)}\`);`,
          `await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} SET NOT NULL');`,
        );
      }
      if (/_uuid$/.test(column.databaseName) && dataSource.driver.normalizeType(column) === 'uuid') {
        const index = `"${metadata.tableName}_${column.databaseName}_idx"`;
        up.push(`await queryRunner.query('CREATE INDEX ${index} ON ${table} (${quoted})');`);
      }
      for (const index of entityListIndexes(dataSource, metadata)) {
        if (index.columns.includes(column.databaseName)) writeIndex(index);
      }
      down.unshift(`await queryRunner.query('ALTER TABLE ${table} DROP COLUMN ${quoted}');`);
    } else if (problem.kind === 'type') {
      const type = sqlType(dataSource, column).replace(/ CHECK .*/, '');
      up.push(
        `await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} TYPE ${type} USING ${quoted}::${type.replace(/\(.*\)/, '')}');`,
      );
      down.unshift(`// revert the type of ${metadata.tableName}.${column.databaseName} by hand if needed`);
    } else {
      const set = column.isNullable ? 'DROP NOT NULL' : 'SET NOT NULL';
      const unset = column.isNullable ? 'SET NOT NULL' : 'DROP NOT NULL';
      if (!column.isNullable) {
        const value = fill ?? defaultSql(column);
        if (value === undefined) {
          unfilled.push({ table: metadata.tableName, column: column.databaseName, added: false });
          continue;
        }
        up.push(
          `await queryRunner.query(\`UPDATE ${table} SET ${quoted} = ${inTemplate(value)} WHERE ${quoted} IS NULL\`);`,
        );
      }
      up.push(`await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} ${set}');`);
      down.unshift(`await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} ${unset}');`);
    }
  }
  if (unfilled.length) throw new UnfilledColumnsError(unfilled);
  const className = `${name}${timestamp}`;
  const kebab = name.replace(/([a-z\d])([A-Z])/g, '$1-$2').toLowerCase();
  const imports = [
    ...(usesCreateResourceTable ? [`import { createResourceTable } from '${SDK_PACKAGE}';`] : []),
    `import { MigrationInterface, QueryRunner } from 'typeorm';`,
  ];
  const body = (lines: string[]) => lines.map((line) => `    ${line}`).join('\n');
  const source = `${imports.join('\n')}

export class ${className} implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
${body(up)}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${body(down)}
  }
}
`;
  return { className, fileName: `${timestamp}-${kebab}.ts`, source };
}
