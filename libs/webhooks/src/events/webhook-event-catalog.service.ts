import { Inject, Injectable } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  APP_CONFIG,
  AppConfig,
  JsonSchema,
  ResourceAction,
  ResourceDefinition,
  ResourceRegistry,
  embeddedReads,
  extensionManifest,
  isExtension,
  resourceCollectionPath,
} from '@wharf/core';
import { DataSource } from 'typeorm';
import { Envelope, ThinEnvelope, thinEnvelope } from '../outbox/envelope';
import { exampleChanges, exampleEnvelope, exampleRecord } from './event-examples';
import { changesSchema, eventSchema, schemaOfExample, thinEventSchema } from './event-schemas';

/** One event a webhook endpoint can subscribe to. */
export interface CatalogEvent {
  name: string;
  /** The resource the event is about (its singular name). */
  resource: string;
  description: string;
  /** The envelope as it is delivered, with example data. */
  example: Envelope;
  /** JSON Schema (2020-12) of the envelope as delivered; typed clients are generated from it. */
  schema: JsonSchema;
  /** The same as an endpoint with `payload: "thin"` receives it; null for an event about no record. */
  thin: { example: ThinEnvelope; schema: JsonSchema } | null;
}

/** What an event of no resource needs when its declaration names no permission. */
export const EVENTS_READ = 'events:read';

const ACTIONS: Record<ResourceAction, (resource: string) => string> = {
  created: (r) => `A ${r} was created; data is the new record.`,
  updated: (r) =>
    `A ${r} changed; data is the record after the change and additionalData.changes holds {field: [old, new]} of what changed.`,
  deleted: (r) => `A ${r} was deleted; data is its last state.`,
};

/**
 * Every event the loaded extensions can emit: `<resource>.created|updated|deleted` of each registered
 * resource (except management resources that emit none), plus the custom events extensions declare in
 * their manifest (`@Extension({ events: [...] })`). Built once, on first use.
 */
@Injectable()
export class WebhookEventCatalog {
  private events?: Map<string, CatalogEvent>;
  /** What a caller needs to receive or read each event: its resource's read, and its embeds' reads. */
  private readonly permissions = new Map<string, readonly string[]>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly modules: ModulesContainer,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The permissions a caller needs to receive the event or read it (undefined: not in the catalog): an
   * event carries its record, and the record the records it embeds.
   */
  permissionsOf(name: string): readonly string[] | undefined {
    this.build();
    return this.permissions.get(name);
  }

  /** What reading an event of `def` (or of no resource, or named `declared`) needs. */
  private readPermissions(def: ResourceDefinition | undefined, declared?: string): string[] {
    const own = declared ?? (def?.scope === undefined ? EVENTS_READ : `${def.scope}:read`);
    return def ? [...new Set([own, ...embeddedReads(def)])] : [own];
  }

  private thin(def: ResourceDefinition | undefined, example: Envelope, description: string) {
    const path = def && resourceCollectionPath(def);
    if (!def || path === undefined) return null;
    const href = `${this.config.publicUrl}${path}/${String(example.data.id)}`;
    return {
      example: thinEnvelope(example, def.keys.singular, href),
      schema: thinEventSchema(example.event, description, def.keys.singular),
    };
  }

  all(): CatalogEvent[] {
    return [...this.build().values()];
  }

  get(name: string): CatalogEvent | undefined {
    return this.build().get(name);
  }

  has(name: string): boolean {
    return this.build().has(name);
  }

  private build(): Map<string, CatalogEvent> {
    if (this.events) return this.events;
    const events: CatalogEvent[] = [];
    const bySingular = new Map(this.registry.all().map((def) => [def.keys.singular, def]));
    for (const def of this.registry.all()) if (def.events !== false) events.push(...this.resourceEvents(def));
    for (const module of this.modules.values()) {
      if (!isExtension(module.metatype)) continue;
      for (const declared of extensionManifest(module.metatype).events ?? []) {
        const prefix = declared.name.split('.')[0];
        const def = bySingular.get(prefix);
        const example = declared.example ?? (def ? exampleRecord(def) : {});
        // A declared example is the event's `data`, or a whole envelope when it has `event` and `data`.
        const data =
          'event' in example && 'data' in example ? (example.data as Record<string, unknown>) : example;
        const envelope = exampleEnvelope(declared.name, data);
        const { additionalData: additional, ...attributes } = envelope.data;
        events.push({
          name: declared.name,
          resource: def?.name ?? prefix.replace(/_/g, '-'),
          description: declared.description,
          example: envelope,
          schema: eventSchema(
            declared.name,
            declared.description,
            def ?? attributes,
            schemaOfExample(additional),
            this.dataSource,
            declared.nullable,
          ),
          thin: this.thin(def, envelope, declared.description),
        });
        this.permissions.set(declared.name, this.readPermissions(def, declared.permission));
      }
    }
    events.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.events = new Map(events.map((event) => [event.name, event]));
    return this.events;
  }

  /** A resource's created, updated and deleted events. */
  private resourceEvents(def: ResourceDefinition): CatalogEvent[] {
    const events: CatalogEvent[] = [];
    const record = exampleRecord(def);
    for (const action of Object.keys(ACTIONS) as ResourceAction[]) {
      const name = `${def.keys.singular}.${action}`;
      const additionalData = action === 'updated' ? { changes: exampleChanges(def, record) } : {};
      const description = ACTIONS[action](def.name);
      const additionalSchema =
        action === 'updated'
          ? {
              type: 'object',
              properties: { changes: changesSchema(def, this.dataSource) },
              required: ['changes'],
              additionalProperties: false,
            }
          : { type: 'object', properties: {}, additionalProperties: false };
      const example = exampleEnvelope(name, { ...record, additionalData });
      events.push({
        name,
        resource: def.name,
        description,
        example,
        schema: eventSchema(name, description, def, additionalSchema, this.dataSource),
        thin: this.thin(def, example, description),
      });
      this.permissions.set(name, this.readPermissions(def));
    }
    return events;
  }
}
