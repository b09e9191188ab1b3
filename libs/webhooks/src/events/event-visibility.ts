import { Injectable } from '@nestjs/common';
import { PermissionCheck, PermissionDeclaration, RequestContext, RowVisibility } from '@wharf/core';
import { isOperational } from '../outbox/operational-events';
import { WebhookEventCatalog } from './webhook-event-catalog.service';

/** The permissions of the webhook management API besides its resources' (endpoints, logs). */
export const WEBHOOK_PERMISSIONS: PermissionDeclaration[] = [
  {
    name: 'events:read',
    description: 'List events and their deliveries: the events of the resources the caller may read',
  },
  {
    name: 'webhooks.secrets:reveal',
    description: 'Reveal endpoints’ signing secrets and the values of their static headers',
  },
  {
    name: 'webhooks.secrets:rotate',
    description: 'Rotate an endpoint’s signing secret (the answer carries the new one)',
  },
  {
    name: 'webhooks.listen:open',
    description:
      'Open `wharf listen` sessions: an endpoint whose deliveries stream to the CLI (subscribing it needs the read of its events)',
  },
  { name: 'webhooks.erasures:read', description: 'Read erasure jobs and their audit' },
  {
    name: 'webhooks.erasures:write',
    description: 'Erase a record’s data from stored events and request logs',
  },
];

interface Readable {
  names: string[];
  set: ReadonlySet<string>;
}

/**
 * Which events the caller of the request being handled may see: an event carries its record and the
 * records it embeds, so it is read with their read permissions (the catalog's `permissionsOf` each event). The request log,
 * the events API, an event's routing and the live stream show only those; an endpoint may subscribe
 * only to those. A caller holding every permission (and code outside a request) is never filtered.
 */
@Injectable()
export class EventVisibility implements RowVisibility {
  /** Per compiled grants, which keys and sessions with the same permissions share. */
  private readonly readable = new WeakMap<PermissionCheck, Readable>();

  constructor(private readonly catalog: WebhookEventCatalog) {}

  /** The names of the events the caller may read; undefined when it may read every one. */
  readableEvents(): readonly string[] | undefined {
    return this.of(RequestContext.current()?.grants)?.names;
  }

  /** The same as a Set, for checking event by event; undefined when the caller may read every one. */
  readableSet(): ReadonlySet<string> | undefined {
    return this.of(RequestContext.current()?.grants)?.set;
  }

  /** The request log's rows: those of the events the caller may read (see ResourceModelOptions.visibility). */
  visibleValues(): readonly string[] | undefined {
    return this.readableEvents();
  }

  /**
   * The first permission the caller lacks to subscribe an endpoint to `events` (names, or `*`: every event
   * but the operational ones); undefined when it holds them all.
   */
  lackingFor(events: readonly string[]): string | undefined {
    const grants = RequestContext.current()?.grants;
    if (!grants || grants.all) return undefined;
    for (const name of events) {
      const covered =
        name === '*'
          ? this.catalog
              .all()
              .map((event) => event.name)
              .filter((event) => !isOperational(event))
          : [name];
      for (const event of covered) {
        const lacking = this.catalog.permissionsOf(event)?.find((permission) => !grants.has(permission));
        if (lacking) return lacking;
      }
    }
    return undefined;
  }

  private of(grants: PermissionCheck | undefined): Readable | undefined {
    if (!grants || grants.all) return undefined;
    let readable = this.readable.get(grants);
    if (!readable) {
      const names = this.catalog
        .all()
        .map((event) => event.name)
        .filter((event) => this.catalog.permissionsOf(event)!.every((permission) => grants.has(permission)));
      readable = { names, set: new Set(names) };
      this.readable.set(grants, readable);
    }
    return readable;
  }
}
