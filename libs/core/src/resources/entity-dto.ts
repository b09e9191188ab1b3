import { Type } from '@nestjs/common';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  getMetadataStorage,
} from 'class-validator';
import { EntityMetadata } from 'typeorm';
import { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/** `@Column('varchar')` without a length is `varchar(255)`: what validation allows and migrations create. */
export const DEFAULT_VARCHAR_LENGTH = 255;

/** Columns every resource has and no client writes (BaseResource's). */
const BASE_COLUMNS = ['id', 'uuid', 'company_uuid', 'created_at', 'updated_at'];

const INT_RANGE: Record<string, [number, number]> = {
  smallint: [-32_768, 32_767],
  integer: [-2_147_483_648, 2_147_483_647],
  bigint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

/** The class-validator rules a column's declaration implies (type, length, allowed values). */
function rulesOf(column: ColumnMetadata, type: string): PropertyDecorator[] {
  if (column.enum) return [IsIn(column.enum.map(String))];
  if (type === 'character varying' || type === 'character') {
    return [IsString(), MaxLength(Number(column.length) || DEFAULT_VARCHAR_LENGTH)];
  }
  if (type === 'text') return [IsString()];
  if (type in INT_RANGE) return [IsInt(), Min(INT_RANGE[type][0]), Max(INT_RANGE[type][1])];
  if (['double precision', 'real', 'numeric'].includes(type))
    return [IsNumber({ allowNaN: false, allowInfinity: false }, { message: '$property must be a number' })];
  if (type === 'boolean') return [IsBoolean()];
  if (type === 'uuid') return [IsUUID()];
  if (type.startsWith('timestamp') || type === 'date') return [IsISO8601()];
  if (type === 'json' || type === 'jsonb') return [IsObject()];
  return [];
}

/**
 * The writable fields of a resource, derived from its entity so the entity is their one declaration:
 * every column but the base ones and `exclude` (hidden, read-only), validated by what the column says
 * (type, length, enum values) and optional when it is nullable, has a default or is a reference a nested
 * write fills in. class-validator decorators written on the entity's properties (`@Min(0)`, `@IsEmail()`)
 * add their rules.
 *
 * @param normalize the data source's type normalisation (`varchar` → `character varying`, …)
 */
export function entityDto(
  metadata: EntityMetadata,
  exclude: Iterable<string>,
  normalize: (column: ColumnMetadata) => string,
): Type {
  const entity = metadata.target as Type;
  const skipped = new Set([...BASE_COLUMNS, ...exclude]);
  const references = new Set(
    metadata.manyToOneRelations.flatMap((relation) => relation.joinColumns.map((c) => c.propertyName)),
  );
  const dto = { [`${entity.name}Fields`]: class {} }[`${entity.name}Fields`];
  for (const column of metadata.columns) {
    if (skipped.has(column.propertyName)) continue;
    const optional = column.isNullable || column.default !== undefined || references.has(column.propertyName);
    const rules = [...(optional ? [IsOptional()] : []), ...rulesOf(column, normalize(column))];
    for (const rule of rules) rule(dto.prototype, column.propertyName);
  }
  // The entity's own rules are copied, not inherited: class-validator lets a subclass's rules of a
  // property hide the parent's of the same kind, and `@Min(0)` must add to the derived `@Min`, not vanish.
  const storage = getMetadataStorage();
  for (const rule of storage.getTargetValidationMetadatas(entity, '', true, false)) {
    if (skipped.has(rule.propertyName)) continue;
    storage.addValidationMetadata(
      Object.assign(Object.create(Object.getPrototypeOf(rule) as object), rule, { target: dto }),
    );
  }
  return dto;
}
