import { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

export type JsonSchema = Record<string, any>;

/** One class-validator constraint → the JSON Schema keywords it implies (of a value, or of each item). */
function keywords(name: string, constraints: unknown[] | undefined): JsonSchema {
  const [first, second] = constraints ?? [];
  switch (name) {
    case 'isString':
      return { type: 'string' };
    case 'isInt':
      return { type: 'integer' };
    case 'isNumber':
    case 'isNumberString':
      return { type: 'number' };
    case 'isBoolean':
      return { type: 'boolean' };
    case 'isObject':
      return { type: 'object' };
    case 'isArray':
      return { type: 'array' };
    case 'isUuid':
      return { type: 'string', format: 'uuid' };
    case 'isEmail':
      return { type: 'string', format: 'email' };
    case 'isUrl':
      return { type: 'string', format: 'uri' };
    case 'isIso8601':
    case 'isDateString':
      return { type: 'string', format: 'date-time' };
    case 'isIn':
      return { enum: first as unknown[] };
    case 'isEnum':
      return { enum: Object.values(first as object) };
    case 'min':
      return { minimum: first };
    case 'max':
      return { maximum: first };
    case 'minLength':
      return { minLength: first };
    case 'maxLength':
      return { maxLength: first };
    case 'length':
      return { minLength: first, ...(second !== undefined ? { maxLength: second } : {}) };
    case 'arrayNotEmpty':
      return { type: 'array', minItems: 1 };
    case 'arrayMinSize':
      return { type: 'array', minItems: first };
    case 'arrayMaxSize':
      return { type: 'array', maxItems: first };
    case 'matches':
      return { type: 'string', pattern: (first as RegExp).source };
    default:
      return {};
  }
}

/**
 * The JSON Schema of a class-validator DTO: its validated properties with their types and limits,
 * and those without `@IsOptional()` as required (unless `partial`, as for updates).
 */
export function dtoSchema(dto: Type, partial = false): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const optional = new Set<string>();
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  for (const metadata of metadatas) {
    const property = (properties[metadata.propertyName] ??= {});
    if (metadata.name === 'isOptional') {
      optional.add(metadata.propertyName);
      continue;
    }
    const implied = keywords(metadata.name ?? '', metadata.constraints);
    if (metadata.each) {
      property.type = 'array';
      property.items = { ...(property.items ?? {}), ...implied };
    } else {
      Object.assign(property, implied);
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (optional.has(name)) property.nullable = true;
  }
  const required = partial ? [] : Object.keys(properties).filter((name) => !optional.has(name));
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
