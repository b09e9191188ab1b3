import { DataSource, EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { ListIndex, createIndexSql, dropIndexSql } from '../resources/list-indexes';
import { columnSql, defaultSql, sqlType } from './column-sql';
import { GeneratedMigration, migrationSource } from './migration-source';
import { SchemaProblem, compareSchema, entityListIndexes } from './schema-compare';

export type { GeneratedMigration } from './migration-source';

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

const BASE_COLUMNS = ['id', 'uuid', 'company_uuid', 'created_at', 'updated_at'];

/** SQL written into a template literal of the migration's source. */
const inTemplate = (sql: string) => sql.replace(/[`\\$]/g, '\\$&');

/** The statements of a migration, each problem of compareSchema adding its fix (`up`) and undo (`down`). */
class MigrationPlan {
  readonly up: string[] = [];
  readonly down: string[] = [];
  readonly unfilled: UnfilledColumn[] = [];
  usesCreateResourceTable = false;
  // A search index reads several columns: adding two of them writes it once.
  private readonly writtenIndexes = new Set<string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly backfill: Record<string, string>,
  ) {}

  add(problem: SchemaProblem): void {
    const metadata = this.dataSource.entityMetadatas.find((m) => m.tableName === problem.table)!;
    if (problem.kind === 'table') return this.createTable(metadata);
    if (problem.kind === 'index') {
      this.writeIndex(problem.index!);
      this.down.unshift(`await queryRunner.query('${dropIndexSql(problem.index!)}');`);
      return;
    }
    const column = metadata.columns.find((c) => c.propertyName === problem.field)!;
    if (problem.kind === 'column') this.addColumn(metadata, column);
    else if (problem.kind === 'type') this.changeType(metadata, column);
    else this.changeNullable(metadata, column);
  }

  private writeIndex(index: ListIndex): void {
    if (this.writtenIndexes.has(index.name)) return;
    this.writtenIndexes.add(index.name);
    this.up.push(`await queryRunner.query('${createIndexSql(index)}');`);
  }

  /** The value `--backfill` gives the existing rows of `table.column` (or of `column` in any table). */
  private fillOf(table: string, column: string): string | undefined {
    if (Object.hasOwn(this.backfill, `${table}.${column}`)) return this.backfill[`${table}.${column}`];
    return Object.hasOwn(this.backfill, column) ? this.backfill[column] : undefined;
  }

  private createTable(metadata: EntityMetadata): void {
    const table = `"${metadata.tableName}"`;
    const isResource = BASE_COLUMNS.every((base) => metadata.columns.some((c) => c.databaseName === base));
    const own = metadata.columns.filter((c) => !isResource || !BASE_COLUMNS.includes(c.databaseName));
    const definitions = own.map((column) => columnSql(this.dataSource, metadata, column));
    if (isResource) {
      this.usesCreateResourceTable = true;
      this.up.push(
        `await createResourceTable(\n      queryRunner,\n      '${metadata.tableName}',\n      \`${definitions.join(',\n       ')}\`,\n    );`,
      );
    } else {
      this.up.push(
        `await queryRunner.query(\`CREATE TABLE ${table} (\n      ${definitions.join(',\n      ')}\n    )\`);`,
      );
    }
    for (const index of entityListIndexes(this.dataSource, metadata)) this.writeIndex(index);
    this.down.unshift(`await queryRunner.query('DROP TABLE ${table}');`);
  }

  private addColumn(metadata: EntityMetadata, column: ColumnMetadata): void {
    const table = `"${metadata.tableName}"`;
    const quoted = `"${column.databaseName}"`;
    const fill = this.fillOf(metadata.tableName, column.databaseName);
    const unfilledNotNull = !column.isNullable && defaultSql(column) === undefined;
    if (unfilledNotNull && fill === undefined) {
      this.unfilled.push({ table: metadata.tableName, column: column.databaseName, added: true });
      return;
    }
    const definition = columnSql(this.dataSource, metadata, column, column.isNullable || unfilledNotNull);
    this.up.push(`await queryRunner.query(\`ALTER TABLE ${table} ADD COLUMN ${definition}\`);`);
    if (unfilledNotNull) {
      this.up.push(
        `await queryRunner.query(\`UPDATE ${table} SET ${quoted} = ${inTemplate(fill!)}\`);`,
        `await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} SET NOT NULL');`,
      );
    }
    if (/_uuid$/.test(column.databaseName) && this.dataSource.driver.normalizeType(column) === 'uuid') {
      const index = `"${metadata.tableName}_${column.databaseName}_idx"`;
      this.up.push(`await queryRunner.query('CREATE INDEX ${index} ON ${table} (${quoted})');`);
    }
    for (const index of entityListIndexes(this.dataSource, metadata)) {
      if (index.columns.includes(column.databaseName)) this.writeIndex(index);
    }
    this.down.unshift(`await queryRunner.query('ALTER TABLE ${table} DROP COLUMN ${quoted}');`);
  }

  private changeType(metadata: EntityMetadata, column: ColumnMetadata): void {
    const [table, quoted] = [`"${metadata.tableName}"`, `"${column.databaseName}"`];
    const type = sqlType(this.dataSource, column).replace(/ CHECK .*/, '');
    this.up.push(
      `await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} TYPE ${type} USING ${quoted}::${type.replace(/\(.*\)/, '')}');`,
    );
    this.down.unshift(`// revert the type of ${metadata.tableName}.${column.databaseName} by hand if needed`);
  }

  private changeNullable(metadata: EntityMetadata, column: ColumnMetadata): void {
    const [table, quoted] = [`"${metadata.tableName}"`, `"${column.databaseName}"`];
    const set = column.isNullable ? 'DROP NOT NULL' : 'SET NOT NULL';
    const unset = column.isNullable ? 'SET NOT NULL' : 'DROP NOT NULL';
    if (!column.isNullable) {
      const value = this.fillOf(metadata.tableName, column.databaseName) ?? defaultSql(column);
      if (value === undefined) {
        this.unfilled.push({ table: metadata.tableName, column: column.databaseName, added: false });
        return;
      }
      this.up.push(
        `await queryRunner.query(\`UPDATE ${table} SET ${quoted} = ${inTemplate(value)} WHERE ${quoted} IS NULL\`);`,
      );
    }
    this.up.push(`await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} ${set}');`);
    this.down.unshift(`await queryRunner.query('ALTER TABLE ${table} ALTER COLUMN ${quoted} ${unset}');`);
  }
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
  const plan = new MigrationPlan(dataSource, backfill);
  for (const problem of problems) plan.add(problem);
  if (plan.unfilled.length) throw new UnfilledColumnsError(plan.unfilled);
  return migrationSource(name, timestamp, plan);
}
