import { JsonSchema, ResourceDefinition, columnJsonSchema, orNull, recordJsonSchema } from '@wharf/core';
import { DataSource } from 'typeorm';
import { API_VERSION } from '../outbox/envelope';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** The schema of a value as the example shows it: for the `additionalData` of declared custom events. */
export function schemaOfExample(value: unknown): JsonSchema {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array' };
  switch (typeof value) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'object': {
      const entries = Object.entries(value as Record<string, unknown>);
      return {
        type: 'object',
        properties: Object.fromEntries(entries.map(([key, item]) => [key, schemaOfExample(item)])),
        required: entries.map(([key]) => key),
      };
    }
    default:
      return {};
  }
}

/** `additionalData.changes` of `<resource>.updated`: `{field: [old, new]}` for the fields that changed. */
export function changesSchema(def: ResourceDefinition, dataSource: DataSource): JsonSchema {
  const record = recordJsonSchema(def, dataSource);
  const properties: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries<JsonSchema>(record.properties)) {
    if (field === 'id') continue;
    const value = def.columns.has(field) ? columnJsonSchema(def, dataSource, field) : schema;
    properties[field] = { type: 'array', prefixItems: [value, value], minItems: 2, maxItems: 2 };
  }
  return { type: 'object', properties, additionalProperties: false };
}

/**
 * The JSON Schema (2020-12) of an event's envelope as delivered: `data` is the record of the resource the
 * event is about (or shaped like the declared example when there is none, with its `nullable` fields
 * admitting null) plus `additionalData`.
 */
export function eventSchema(
  name: string,
  description: string,
  about: ResourceDefinition | Record<string, unknown>,
  additionalData: JsonSchema,
  dataSource: DataSource,
  nullable: string[] = [],
): JsonSchema {
  // An event about no registered resource is described by its declared example.
  const record =
    'columns' in about ? recordJsonSchema(about as ResourceDefinition, dataSource) : schemaOfExample(about);
  for (const field of nullable)
    if (record.properties[field]) record.properties[field] = orNull(record.properties[field]);
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: name,
    description,
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^evt_' },
      api_version: { const: API_VERSION },
      event: { const: name },
      created_at: { type: 'string', format: 'date-time' },
      data: {
        ...record,
        properties: { ...record.properties, additionalData },
        required: [...record.required, 'additionalData'],
      },
    },
    required: ['id', 'api_version', 'event', 'created_at', 'data'],
    additionalProperties: false,
  };
}

/**
 * The JSON Schema of an event's thin envelope (an endpoint with `payload: "thin"`): `data` is a reference
 * to the record of resource `object`, with the names of the fields an update changed.
 */
export function thinEventSchema(name: string, description: string, object: string): JsonSchema {
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: `${name} (thin)`,
    description,
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^evt_' },
      api_version: { const: API_VERSION },
      event: { const: name },
      created_at: { type: 'string', format: 'date-time' },
      data: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          object: { const: object },
          href: {
            type: 'string',
            format: 'uri',
            description: 'The URL of the record on the api (GET it with a key).',
          },
          additionalData: {
            type: 'object',
            properties: { changes: { type: 'array', items: { type: 'string' } } },
            additionalProperties: false,
          },
        },
        required: ['id', 'object', 'href', 'additionalData'],
        additionalProperties: false,
      },
    },
    required: ['id', 'api_version', 'event', 'created_at', 'data'],
    additionalProperties: false,
  };
}
