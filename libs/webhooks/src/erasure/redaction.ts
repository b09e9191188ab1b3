/**
 * How one record's data is erased from stored payloads (docs/data-lifecycle.md, "Erasure"). A JSON object
 * is that record when its `uuid` or `id` is the record's uuid, wherever it sits in an event's `data`: the
 * event's own record (`data`), or one embedded in another (`data.driver`, an item of `data.drivers`, any
 * depth). Each of its attributes becomes ERASED, except ids (`id`, `uuid`, `*_uuid`) and times
 * (`created_at`, `updated_at`); `additionalData.changes` keeps the names of the fields that changed.
 * A record embedded in the erased one (an object with its own uuid) is another record and is kept.
 */
export const ERASED = '[erased]';

const KEPT = new Set(['id', 'uuid', 'created_at', 'updated_at']);
const kept = (key: string) => KEPT.has(key) || key.endsWith('_uuid');

/** Strings shorter than this are not looked for in unstructured text (too likely to be something else). */
const MIN_SCRUBBED_LENGTH = 3;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Json = unknown;
const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One record's erasure: whether the last walk changed anything, and the erased strings (for text that is not JSON). */
export class Redaction {
  changed = false;
  readonly values = new Set<string>();

  constructor(readonly id: string) {}

  /** `value` with every object that is the record erased. */
  walk(value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (!isObject(value)) return value;
    if (value.uuid === this.id || value.id === this.id) return this.erase(value);
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.walk(item)]));
  }

  /** An event envelope (`{id, event, created_at, data}`) with the record erased from its data. */
  envelope(value: Json): Json {
    return isObject(value) && 'data' in value ? { ...value, data: this.walk(value.data) } : this.walk(value);
  }

  /** `text` with the erased strings replaced, as they are and as JSON escapes them. */
  scrub(text: string): string {
    const values = [...this.values].flatMap((value) => [value, JSON.stringify(value).slice(1, -1)]);
    let scrubbed = text;
    for (const value of [...new Set(values)].sort((a, b) => b.length - a.length))
      scrubbed = scrubbed.split(value).join(ERASED);
    return scrubbed;
  }

  private erase(record: Record<string, Json>): Record<string, Json> {
    const erased: Record<string, Json> = {};
    for (const [key, value] of Object.entries(record)) {
      if (kept(key)) erased[key] = value;
      else if (key === 'additionalData' && isObject(value)) erased[key] = this.additional(value);
      else erased[key] = this.attribute(value);
    }
    return erased;
  }

  /** An event's additionalData: `changes` is `{field: [old, new]}`, its field names kept. */
  private additional(data: Record<string, Json>): Record<string, Json> {
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(data)) {
      if (key === 'changes' && isObject(value))
        out[key] = Object.fromEntries(
          Object.entries(value).map(([field, change]) => [
            field,
            kept(field) ? change : this.attribute(change),
          ]),
        );
      else out[key] = kept(key) ? value : this.attribute(value);
    }
    return out;
  }

  /** One attribute of the record: erased, unless null or another record embedded in it. */
  private attribute(value: Json): Json {
    if (value === null || value === undefined) return value;
    if (Array.isArray(value)) return value.map((item) => this.attribute(item));
    if (isObject(value) && typeof value.uuid === 'string') return this.walk(value);
    this.collect(value);
    if (value === ERASED) return value;
    this.changed = true;
    return ERASED;
  }

  private collect(value: Json): void {
    if (typeof value === 'string') {
      if (value !== ERASED && value.length >= MIN_SCRUBBED_LENGTH && !UUID.test(value))
        this.values.add(value);
    } else if (typeof value === 'number') {
      if (String(value).length >= MIN_SCRUBBED_LENGTH) this.values.add(String(value));
    } else if (Array.isArray(value)) value.forEach((item) => this.collect(item));
    else if (isObject(value)) Object.values(value).forEach((item) => this.collect(item));
  }
}

/** A stored body (JSON text, or not) with the record erased; the same text when it holds nothing of it. */
export function redactText(redaction: Redaction, text: string, envelope: boolean): string {
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    return redaction.scrub(text);
  }
  redaction.changed = false;
  const redacted = envelope ? redaction.envelope(parsed) : redaction.walk(parsed);
  return redaction.changed ? JSON.stringify(redacted) : text;
}
