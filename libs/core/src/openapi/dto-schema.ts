import { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';

export type JsonSchema = Record<string, any>;

/**
 * `schema` or null, in JSON Schema 2020-12 (OpenAPI 3.1): `null` joins a single `type` and an `enum`, and a
 * reference or composition becomes `anyOf [it, null]`. A schema without a type already admits null.
 */
export function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') {
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(schema.enum ? { enum: [...schema.enum, null] } : {}),
    };
  }
  if (Array.isArray(schema.type))
    return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  if (schema.enum) return { ...schema, enum: [...schema.enum, null] };
  if (schema.$ref || schema.allOf || schema.anyOf || schema.oneOf) {
    const { description, ...rest } = schema;
    return { ...(description ? { description } : {}), anyOf: [rest, { type: 'null' }] };
  }
  return schema;
}

/** An enum with the type its members share, so that generators and `orNull` see one. */
function enumSchema(members: unknown[]): JsonSchema {
  const types = new Set(members.map((member) => typeof member));
  const [type] = types;
  return types.size === 1 && ['string', 'number', 'boolean'].includes(type)
    ? { type, enum: members }
    : { enum: members };
}

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
      return { type: 'object', additionalProperties: true };
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
      return enumSchema(first as unknown[]);
    case 'isEnum':
      return enumSchema(Object.values(first as object));
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
  const optionalOrNull = new Set<string>();
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  for (const metadata of metadatas) {
    const property = (properties[metadata.propertyName] ??= {});
    // `@ValidateIf` makes a field's rules conditional (e.g. checked only when sent): not required.
    if (metadata.name === 'isOptional' || metadata.type === 'conditionalValidation') {
      optional.add(metadata.propertyName);
      if (metadata.name === 'isOptional') optionalOrNull.add(metadata.propertyName);
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
    // `@IsOptional()` lets null through as well as a missing field.
    if (optionalOrNull.has(name)) properties[name] = orNull(property);
  }
  const required = partial ? [] : Object.keys(properties).filter((name) => !optional.has(name));
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
