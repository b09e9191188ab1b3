import { Injectable, Type } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { getMetadataStorage } from 'class-validator';
import { DataSource, EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { RelationMetadata } from 'typeorm/metadata/RelationMetadata';
import { entityDto } from './entity-dto';
import { sortableColumns } from './list-indexes';
import { pluralPath, rootKeys } from './naming';
import { ColumnInfo, ColumnKind, EmbedInfo, ReferenceInfo, ResourceDefinition } from './resource-definition';
import {
  MAX_EMBEDDED_ITEMS,
  ResourceModelMetadata,
  resourceModel,
  resourceScope,
} from './resource-model.decorator';

function columnKind(column: ColumnMetadata): ColumnKind {
  const type = column.type;
  if (type === Number) return 'integer';
  if (type === Boolean) return 'boolean';
  if (type === Date) return 'timestamp';
  if (type === String) return 'string';
  const name = String(type).toLowerCase();
  if (['int', 'integer', 'int2', 'int4', 'int8', 'smallint', 'bigint'].includes(name)) return 'integer';
  if (['float', 'float4', 'float8', 'double precision', 'real', 'numeric', 'decimal'].includes(name))
    return 'number';
  if (['bool', 'boolean'].includes(name)) return 'boolean';
  if (name === 'uuid') return 'uuid';
  if (name.startsWith('timestamp') || name === 'date') return 'timestamp';
  if (name === 'json' || name === 'jsonb' || name === 'simple-json') return 'json';
  return 'string';
}

/** PostgreSQL's double precision under the names TypeORM accepts for it (`float` without a precision is one). */
function isDouble(column: ColumnMetadata): boolean {
  const name = String(column.type).toLowerCase();
  return name === 'float8' || name === 'double precision' || (name === 'float' && !column.precision);
}

function writableFields(dto: Type): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(dto, '', true, false)
      .map((m) => m.propertyName),
  );
}

/** Builds (once) and serves the definition of every resource model known to the data source. */
@Injectable()
export class ResourceRegistry {
  private readonly byName = new Map<string, ResourceDefinition>();
  private readonly byEntity = new Map<object, ResourceDefinition>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    for (const metadata of dataSource.entityMetadatas) {
      const definition = this.build(metadata);
      if (definition) {
        this.byName.set(definition.name, definition);
        this.byEntity.set(metadata.target as object, definition);
      }
    }
  }

  get(name: string): ResourceDefinition {
    const definition = this.byName.get(name);
    if (!definition)
      throw new Error(`No resource model is registered as "${name}" (is its entity in an @Extension?)`);
    return definition;
  }

  forEntity(entity: object): ResourceDefinition {
    const definition = this.byEntity.get(entity);
    if (!definition) throw new Error(`${(entity as { name?: string }).name} is not a resource model`);
    return definition;
  }

  all(): ResourceDefinition[] {
    return [...this.byName.values()];
  }

  private build(metadata: EntityMetadata): ResourceDefinition | undefined {
    const model = resourceModel(metadata.target);
    if (!model) return undefined;
    const hidden = new Set(model.hidden ?? []);
    const name = model.name;
    const normalizeType = (column: ColumnMetadata) => this.dataSource.driver.normalizeType(column);
    const dto = model.dto ?? entityDto(metadata, [...hidden, ...(model.readOnly ?? [])], normalizeType);
    return {
      name,
      path: pluralPath(name),
      keys: rootKeys(name),
      entity: metadata.target as Type,
      scope: resourceScope(metadata.target as Type),
      table: metadata.tableName,
      dto,
      columns: definitionColumns(metadata, hidden),
      searchable: model.searchable ?? [],
      searchKeys: model.searchKeys,
      sortable: new Set(sortableColumns(metadata, model, (column) => String(normalizeType(column)))),
      writable: writableFields(dto),
      hidden,
      embeds: (model.embed ?? []).map((property) => this.embed(metadata, model, property)),
      references: metadata.manyToOneRelations.map(reference),
      readOnly: new Set(model.readOnly ?? []),
      hooks: model.hooks,
      events: model.events ?? true,
      schemas: model.schemas,
      visibility: model.visibility,
    };
  }

  /** An embedded relation of the model, whose target's definition is looked up when first needed. */
  private embed(metadata: EntityMetadata, model: ResourceModelMetadata, property: string): EmbedInfo {
    const relation = metadata.findRelationWithPropertyPath(property);
    if (!relation) throw new Error(`${metadata.name} embeds "${property}", which is not a relation`);
    const target = () => this.forEntity(relation.inverseEntityMetadata.target as object);
    if (relation.isManyToOne || relation.isOneToOneOwner) {
      return { property, kind: 'one', column: relation.joinColumns[0].databaseName, target, maxItems: 1 };
    }
    const back = relation.inverseRelation?.joinColumns[0]?.databaseName;
    if (!back) throw new Error(`${metadata.name}.${property} needs an inverse relation with a join column`);
    return {
      property,
      kind: 'many',
      column: back,
      target,
      maxItems: model.maxEmbedded ?? MAX_EMBEDDED_ITEMS,
    };
  }
}

/** The serialised, filterable columns of a resource: all but `id` and the hidden ones. */
function definitionColumns(metadata: EntityMetadata, hidden: Set<string>): Map<string, ColumnInfo> {
  const columns = new Map<string, ColumnInfo>();
  for (const column of metadata.columns) {
    if (column.propertyName !== column.databaseName) {
      throw new Error(
        `${metadata.name}.${column.propertyName}: resource columns must be named like their property`,
      );
    }
    if (column.propertyName === 'id' || hidden.has(column.propertyName)) continue;
    columns.set(column.propertyName, {
      name: column.propertyName,
      kind: columnKind(column),
      enum: column.enum?.map(String),
      nullable: column.isNullable,
      double: isDouble(column),
    });
  }
  return columns;
}

/** A to-one relation as the reference checks and ON DELETE handling read it. */
function reference(relation: RelationMetadata): ReferenceInfo {
  const target = relation.inverseEntityMetadata;
  return {
    column: relation.joinColumns[0].databaseName,
    table: target.tableName,
    resource: resourceModel(target.target)?.name ?? target.tableName,
    scoped: target.columns.some((column) => column.propertyName === 'company_uuid'),
    onDelete: relation.onDelete ?? 'NO ACTION',
  };
}
