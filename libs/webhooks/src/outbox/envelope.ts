export const API_VERSION = 'v1';

/** The webhook envelope every event is delivered in. */
export interface Envelope {
  id: string;
  api_version: string;
  event: string;
  created_at: string;
  data: Record<string, unknown> & { id: unknown; additionalData: Record<string, unknown> };
}

/** The thin form of an envelope: `data` a reference to the record (see stages/dispatch/thin-envelope.ts). */
export interface ThinEnvelope {
  id: string;
  api_version: string;
  event: string;
  created_at: string;
  data: { id: unknown; object: string; href: string; additionalData: { changes?: string[] } };
}

/** `envelope` made thin: `object` the record's resource key, `href` its URL. */
export function thinEnvelope(envelope: Envelope, object: string, href: string): ThinEnvelope {
  const changes = envelope.data.additionalData?.changes;
  return {
    id: envelope.id,
    api_version: envelope.api_version,
    event: envelope.event,
    created_at: envelope.created_at,
    data: {
      id: envelope.data.id,
      object,
      href,
      additionalData: changes && typeof changes === 'object' ? { changes: Object.keys(changes) } : {},
    },
  };
}

/** SQL text expressions of an event's parts: each a parameter, a column or an expression of type text. */
export interface EnvelopeParts {
  id: string;
  event: string;
  /** ISO-8601 time of the event. */
  createdAt: string;
  /** The JSON text of the record the event is about. */
  record: string;
  /** The JSON text of its `additionalData` (an object). */
  additionalData: string;
}

/**
 * The envelope as PostgreSQL builds it, the one definition of it (json): every statement that writes an
 * event, a one-statement write's or a transaction's outbox insert, uses it.
 * `{"id", "api_version", "event", "created_at", "data": {"id": uuid ?? id, ...record, "additionalData"}}`.
 * A resource's record already starts with `id` (its uuid), so `data` is its text with `additionalData`
 * appended; any other record (a domain event's) is taken apart key by key in the same order.
 */
export function envelopeSql({ id, event, createdAt, record, additionalData }: EnvelopeParts): string {
  const json = `(${record})::json`;
  const generic = `(SELECT '{' || string_agg(to_json(x.k)::text || ':' || x.v, ',' ORDER BY x.o) || '}' FROM (
      SELECT 'id' AS k, i.v, 0::bigint AS o FROM (SELECT (CASE WHEN EXISTS (SELECT 1 FROM json_object_keys(${json}) k WHERE k = 'id')
          THEN ${json}->'id' WHEN json_typeof(${json}->'uuid') <> 'null' THEN ${json}->'uuid' END)::text AS v) i WHERE i.v IS NOT NULL
      UNION ALL SELECT e.key, e.value::text, e.n FROM json_each(${json}) WITH ORDINALITY e(key, value, n)
        WHERE e.key NOT IN ('id', 'additionalData')
      UNION ALL SELECT 'additionalData', ${additionalData}, COALESCE((SELECT e.n FROM json_each(${json}) WITH ORDINALITY e(key, value, n)
        WHERE e.key = 'additionalData' LIMIT 1), 9223372036854775807)) x)`;
  const data = `CASE WHEN left(${record}, 6) = '{"id":' AND strpos(${record}, '"additionalData":') = 0
      THEN left(${record}, -1) || ',"additionalData":' || ${additionalData} || '}' ELSE ${generic} END`;
  return `('{"id":' || to_json((${id})::text)::text || ',"api_version":"${API_VERSION}","event":' || to_json((${event})::text)::text
    || ',"created_at":' || to_json((${createdAt})::text)::text || ',"data":' || ${data} || '}')::json`;
}
