import { createHash } from 'node:crypto';
import { ColumnInfo, ResourceDefinition } from '@wharf/core';
import { API_VERSION, Envelope } from '../outbox/envelope';

export const EXAMPLE_TIME = '2026-11-20T10:00:00.000Z';
const EXAMPLE_EVENT_ID = 'evt_example0000000000000000000';

/** A stable, valid-looking uuid per column name, so examples read like real records. */
function exampleUuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function exampleValue(def: ResourceDefinition, column: ColumnInfo): unknown {
  switch (column.kind) {
    case 'uuid':
      return exampleUuid(column.name === 'uuid' ? def.name : column.name);
    case 'timestamp':
      return EXAMPLE_TIME;
    case 'integer':
      return 1;
    case 'number':
      return column.name === 'latitude' ? 51.9225 : column.name === 'longitude' ? 4.47917 : 1.5;
    case 'boolean':
      return false;
    case 'json':
      return {};
    default:
      return column.enum?.[0] ?? `Example ${column.name.replace(/_/g, ' ')}`;
  }
}

/** A record of the resource as it is serialised, embedded relationships one level deep. */
export function exampleRecord(def: ResourceDefinition, depth = 0): Record<string, unknown> {
  const record: Record<string, unknown> = { id: exampleUuid(def.name) };
  for (const column of def.columns.values()) record[column.name] = exampleValue(def, column);
  if (depth === 0) {
    for (const embed of def.embeds) {
      const child = exampleRecord(embed.target(), depth + 1);
      record[embed.property] = embed.kind === 'one' ? child : [child];
    }
  }
  return record;
}

/** The envelope an event is delivered in, around example `data`. */
export function exampleEnvelope(event: string, data: Record<string, unknown>): Envelope {
  const { additionalData, ...attributes } = data;
  return {
    id: EXAMPLE_EVENT_ID,
    api_version: API_VERSION,
    event,
    created_at: EXAMPLE_TIME,
    data: {
      id: attributes.id ?? attributes.uuid ?? exampleUuid(event),
      ...attributes,
      additionalData: (additionalData as Record<string, unknown> | undefined) ?? {},
    },
  };
}

/** `additionalData.changes` of an example `.updated` event: the first plain text column, changed. */
export function exampleChanges(def: ResourceDefinition, record: Record<string, unknown>) {
  const column = [...def.columns.values()].find(
    (c) => c.kind === 'string' && !c.enum && def.writable.has(c.name),
  );
  return column ? { [column.name]: [`Previous ${column.name.replace(/_/g, ' ')}`, record[column.name]] } : {};
}
