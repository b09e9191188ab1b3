import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  ResourceDefinition,
  ResourceRegistry,
  resourceCollectionPath,
} from '@wharf/core';
import { type Envelope, thinEnvelope } from '../../outbox/envelope';

/**
 * The thin form of an event for an endpoint with `payload: "thin"`: the envelope with `data` reduced to a
 * reference to the record, `{"id", "object", "href", "additionalData": {"changes": [<field>, …]}}`, `href`
 * the absolute URL of the record's GET route (PUBLIC_URL). The receiver reads the record's current state
 * with its own key. An event not about a resource's record (the operational ones) has nothing to point
 * at and goes in full.
 */
@Injectable()
export class ThinEnvelopes {
  private bySingular: Map<string, { def: ResourceDefinition; path: string }> | undefined;

  constructor(
    private readonly registry: ResourceRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** `body` (a full envelope's JSON text) as the thin one, or as it is when it names no record. */
  thin(body: string): string {
    const envelope = JSON.parse(body) as Envelope;
    const resource = this.resources().get(envelope.event.slice(0, envelope.event.lastIndexOf('.')));
    const id = envelope.data?.id;
    if (!resource || (typeof id !== 'string' && typeof id !== 'number')) return body;
    const href = `${this.config.publicUrl}${resource.path}/${encodeURIComponent(String(id))}`;
    return JSON.stringify(thinEnvelope(envelope, resource.def.keys.singular, href));
  }

  private resources() {
    if (!this.bySingular) {
      this.bySingular = new Map();
      for (const def of this.registry.all()) {
        const path = resourceCollectionPath(def);
        if (path !== undefined) this.bySingular.set(def.keys.singular, { def, path });
      }
    }
    return this.bySingular;
  }
}
