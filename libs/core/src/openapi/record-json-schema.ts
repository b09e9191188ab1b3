import { DataSource } from 'typeorm';
import { ResourceDefinition } from '../resources/resource-definition';
import { JsonSchema } from './dto-schema';
import { columnSchema, nullableColumns } from './resource-components';

const orNull = (schema: JsonSchema): JsonSchema =>
  Object.keys(schema).length === 1 && 'description' in schema
    ? schema
    : { anyOf: [schema, { type: 'null' }] };

/**
 * A record as serialised, in JSON Schema 2020-12 (what webhook payloads are described in): `id` and every
 * column, nullable where the table allows it, and — `depth` 0 — its embedded relationships, whose records
 * are served without their own embeds.
 */
export function recordJsonSchema(def: ResourceDefinition, dataSource: DataSource, depth = 0): JsonSchema {
  const nullable = nullableColumns(def, dataSource);
  const properties: Record<string, JsonSchema> = { id: { type: 'string', format: 'uuid' } };
  for (const column of def.columns.values()) {
    const schema = columnSchema(column);
    properties[column.name] = nullable.has(column.name) ? orNull(schema) : schema;
  }
  if (depth === 0) {
    for (const embed of def.embeds) {
      const target = recordJsonSchema(embed.target(), dataSource, depth + 1);
      properties[embed.property] = embed.kind === 'one' ? orNull(target) : { type: 'array', items: target };
    }
  }
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

/** The JSON Schema of a column's value as served (for `additionalData.changes`). */
export function columnJsonSchema(def: ResourceDefinition, dataSource: DataSource, name: string): JsonSchema {
  const column = def.columns.get(name);
  if (!column) return {};
  return nullableColumns(def, dataSource).has(name) ? orNull(columnSchema(column)) : columnSchema(column);
}
