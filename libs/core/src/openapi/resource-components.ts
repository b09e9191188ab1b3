import { DataSource } from 'typeorm';
import { READ_ONLY_FIELDS } from '../resources/body-reader';
import { ColumnInfo, ResourceDefinition } from '../resources/resource-definition';
import { JsonSchema, dtoSchema, orNull } from './dto-schema';
import { resourceSchemas, schemaRef } from './openapi-names';

/** The wire type of a column, as the list grammar and the serialiser see it. */
export function columnSchema(column: ColumnInfo): JsonSchema {
  switch (column.kind) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    case 'json':
      return { description: 'Any JSON value.' };
    default:
      return column.enum ? { type: 'string', enum: column.enum } : { type: 'string' };
  }
}

/** The columns of a resource that may be null as served (never its keys). */
export function nullableColumns(def: ResourceDefinition, dataSource: DataSource): Set<string> {
  return new Set(
    dataSource.hasMetadata(def.entity)
      ? dataSource
          .getMetadata(def.entity)
          .columns.filter(
            (column) => column.isNullable && !['uuid', 'company_uuid'].includes(column.propertyName),
          )
          .map((column) => column.propertyName)
      : [],
  );
}

/**
 * The record as served: every column (nullable where the table allows it) and, unless `embedded`, its
 * embedded relationships, whose records are served without their own embeds.
 */
function recordSchema(def: ResourceDefinition, dataSource: DataSource, embedded: boolean): JsonSchema {
  const nullable = nullableColumns(def, dataSource);
  const properties: Record<string, JsonSchema> = {
    id: {
      type: 'string',
      format: 'uuid',
      description: 'The same value as uuid (the primary key generic clients expect).',
    },
  };
  for (const column of def.columns.values()) {
    const schema = def.schemas?.[column.name] ?? columnSchema(column);
    properties[column.name] = nullable.has(column.name) ? orNull(schema) : schema;
  }
  if (!embedded) {
    for (const embed of def.embeds) {
      const target = schemaRef(resourceSchemas(embed.target().name).embedded);
      properties[embed.property] = embed.kind === 'one' ? orNull(target) : { type: 'array', items: target };
    }
  }
  return {
    type: 'object',
    ...(embedded
      ? { description: `A ${def.name} as embedded in another record: without its own embedded records.` }
      : {}),
    properties,
    required: Object.keys(properties),
  };
}

/** A create (`partial` false) or update body's fields, with embedded relationships written inline. */
function writeSchema(def: ResourceDefinition, partial: boolean): JsonSchema {
  const schema = dtoSchema(def.dto, partial);
  for (const [name, described] of Object.entries(def.schemas ?? {})) {
    const written = schema.properties[name] as JsonSchema | undefined;
    if (written)
      schema.properties[name] = [written.type].flat().includes('null') ? orNull(described) : described;
  }
  for (const embed of def.embeds) {
    const target = embed.target();
    const nested = dtoSchema(target.dto, true);
    nested.properties = {
      uuid: { type: 'string', format: 'uuid' },
      id: { type: 'string', format: 'uuid', description: 'Accepted instead of uuid.' },
      ...nested.properties,
    };
    if (embed.kind === 'many') delete nested.properties[embed.column];
    nested.description = `An embedded ${target.name}: with a uuid (or id) it links (and updates) that ${target.name}; without one it is created.`;
    schema.properties[embed.property] =
      embed.kind === 'one'
        ? orNull(nested)
        : {
            type: 'array',
            items: nested,
            description: `The ${embed.property} become exactly this list (updated by uuid, created, the rest deleted).`,
          };
  }
  const ignored = [...READ_ONLY_FIELDS, ...(def.readOnly ?? [])];
  schema.description =
    `Sent as \`{"${def.keys.singular}": {…}}\` or as the flat object. Other fields are refused (422), ` +
    `except read-only ones a client echoes back (${ignored.join(', ')}), which are ignored.`;
  return schema;
}

/** Body, record and envelope schemas of every registered resource, named as the route decorators expect. */
export function resourceComponents(
  defs: ResourceDefinition[],
  dataSource: DataSource,
): Record<string, JsonSchema> {
  const components: Record<string, JsonSchema> = {};
  for (const def of defs) {
    const names = resourceSchemas(def.name);
    const body = (fields: JsonSchema) => ({
      anyOf: [
        { type: 'object', properties: { [def.keys.singular]: fields }, required: [def.keys.singular] },
        fields,
      ],
    });
    components[names.record] = recordSchema(def, dataSource, false);
    if (defs.some((other) => other.embeds.some((embed) => embed.target() === def)))
      components[names.embedded] = recordSchema(def, dataSource, true);
    components[names.createBody] = body(writeSchema(def, false));
    components[names.updateBody] = body(writeSchema(def, true));
    components[names.single] = {
      type: 'object',
      properties: { [def.keys.singular]: schemaRef(names.record) },
      required: [def.keys.singular],
    };
    components[names.list] = {
      type: 'object',
      properties: {
        [def.keys.plural]: { type: 'array', items: schemaRef(names.record) },
        meta: schemaRef('ListMeta'),
      },
      required: [def.keys.plural, 'meta'],
    };
  }
  return components;
}

/** Query parameters of a resource's list route beyond paging: search, equality per column, operators. */
export function listFilterParameters(def: ResourceDefinition): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  if (def.searchable.length) {
    parameters.push({
      name: 'query',
      in: 'query',
      required: false,
      description: `Case-insensitive substring over ${def.searchable.join(', ')}.`,
      schema: { type: 'string' },
    });
  }
  for (const column of def.columns.values()) {
    if (column.kind === 'json') continue;
    parameters.push({
      name: column.name,
      in: 'query',
      required: false,
      description: `Equals (see \`filters\` for the other operators on ${column.name}).`,
      schema: columnSchema(column),
    });
  }
  parameters.push({
    name: 'filters',
    in: 'query',
    required: false,
    style: 'form',
    explode: true,
    description:
      'Operators on the columns above, one parameter each: `<col>_not`, `<col>_gt`, `<col>_gte`, `<col>_lt`, ' +
      '`<col>_lte`, `<col>_like` (case-insensitive substring), `<col>_in` and `<col>_notIn` (comma lists), ' +
      '`<col>_isNull=true`, `<col>_isNotNull=true`. An unknown parameter, column or operator, or a value of ' +
      'the wrong type, is a 400 naming it.',
    schema: { type: 'object', additionalProperties: { type: 'string' } },
  });
  return parameters;
}
