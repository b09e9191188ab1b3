import { DataSource, EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ExtensionError } from '../extensions/extension-error';
import { ExtensionManifest } from '../extensions/extension.decorator';
import { ListIndex, declaredListIndexes, isIndexDefinition } from '../resources/list-indexes';
import { resourceModel } from '../resources/resource-model.decorator';
import { StoredColumn, family, storedColumns, storedIndexes } from './stored-schema';

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

/** What every problem of one entity says: its extension, resource (or entity) and table. */
type ProblemBase = Pick<SchemaProblem, 'extension' | 'where' | 'table'>;

/** The problem of one declared column, against what the table holds (undefined when they agree). */
function columnProblem(
  dataSource: DataSource,
  base: ProblemBase,
  column: ColumnMetadata,
  found: StoredColumn | undefined,
  nullability: boolean,
): SchemaProblem | undefined {
  const at = { ...base, field: column.propertyName };
  const name = `${base.table}.${column.databaseName}`;
  const declared = dataSource.driver.normalizeType(column);
  if (!found) {
    return {
      ...at,
      kind: 'column',
      message: `column ${name} does not exist in the database: add a migration (npm run cli -- migration:generate ${base.extension} <Name>) and list it in the extension's \`migrations\``,
    };
  }
  if (family(declared) !== family(found.type)) {
    return {
      ...at,
      kind: 'type',
      message: `column ${name} is ${found.type} in the database but the entity declares ${declared}`,
    };
  }
  if (nullability && !column.isPrimary && found.nullable !== column.isNullable) {
    return {
      ...at,
      kind: 'nullable',
      message: `column ${name} is ${found.nullable ? 'nullable' : 'NOT NULL'} in the database but the entity declares it ${column.isNullable ? 'nullable: true' : 'not nullable'}`,
    };
  }
  return undefined;
}

/** The list indexes the declaration asks for that the table lacks (a missing column is its own problem). */
function indexProblems(
  declared: ListIndex[],
  base: ProblemBase,
  columns: Map<string, StoredColumn>,
  indexDefs: Map<string, string[]>,
): SchemaProblem[] {
  return declared
    .filter(
      (index) =>
        index.columns.every((column) => columns.has(column)) &&
        !(indexDefs.get(index.table) ?? []).some((def) => isIndexDefinition(def, index)),
    )
    .map((index) => ({
      ...base,
      field: index.column,
      kind: 'index',
      index,
      message: `index ${index.name} (${index.method} (${index.keys})) does not exist on ${index.table}: the column is declared ${index.kind === 'sort' ? 'sortable' : 'searchable'}, and without it every list page ${index.kind === 'sort' ? 'sorted by it' : 'searching it'} reads all the company's rows; add a migration (npm run cli -- migration:generate ${base.extension} <Name>)`,
    }));
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
  const declaredIndexes = new Map(metadatas.map((m) => [m, indexes ? entityListIndexes(dataSource, m) : []]));
  const indexTables = metadatas.flatMap((m) => [m.tableName, ...declaredIndexes.get(m)!.map((i) => i.table)]);
  const indexDefs = indexes ? await storedIndexes(dataSource, [...new Set(indexTables)]) : new Map();
  return metadatas.flatMap((metadata): SchemaProblem[] => {
    const base = {
      extension: owner.get(metadata.target) ?? '?',
      where: describe(metadata),
      table: metadata.tableName,
    };
    const columns = stored.get(metadata.tableName);
    if (!columns) {
      return [
        {
          ...base,
          kind: 'table',
          message: `table "${metadata.tableName}" does not exist in the database: its migration is missing, not listed in the extension's \`migrations\`, or not run yet (npm run migrate)`,
        },
      ];
    }
    return [
      ...metadata.columns.flatMap(
        (column) =>
          columnProblem(dataSource, base, column, columns.get(column.databaseName), nullability) ?? [],
      ),
      ...indexProblems(declaredIndexes.get(metadata)!, base, columns, indexDefs),
    ];
  });
}

/** The line of a problem, naming extension, resource and field. */
export function problemLine(problem: SchemaProblem): string {
  return problemError(problem).message;
}

export function problemError(problem: SchemaProblem): ExtensionError {
  const field = problem.field ? `, field "${problem.field}"` : '';
  return new ExtensionError(problem.extension, `${problem.where}${field}`, problem.message);
}
