import { Inject, Injectable } from '@nestjs/common';
import {
  attributePointer,
  APP_CONFIG,
  ApiError,
  AppConfig,
  ErrorObject,
  ResourceChange,
  ResourceHooks,
  ResourceRow,
  WriteTransaction,
  errorObject,
  insufficientPermission,
} from '@wharf/core';
import { checkFilter, compiledFilterUpdate } from '../filters/endpoint-filter';
import { brokerUrlRefusal } from '../destinations/broker-target';
import { BROKER_TYPES, HTTP_TYPE } from '../destinations/destination-types';
import { StoredDestination, sealDestination } from './endpoint-config';
import { sealCredentials } from './endpoint-credentials';
import { keepStoredCredentials } from './endpoint-credentials-open';
import { WebhookEventCatalog } from '../events/webhook-event-catalog.service';
import { EventVisibility } from '../events/event-visibility';
import { encryptSecret, generateSecret } from './secrets';
import { WebhookEndpointsService } from './webhook-endpoints.service';

const NOT_NULL: Record<string, string> = {
  max_in_flight: 'a whole number from 1 to 100',
  ordering: '"none" or "entity"',
  payload: '"full" or "thin"',
};

/** The fields that decide what data an endpoint receives, and where. */
const RECEIVES = ['url', 'type', 'config', 'events', 'payload', 'filter'];

/** Disabling records when and why; enabling clears that and the failure streak that auto-disables. */
function setStatus(values: Record<string, unknown>, status: unknown): void {
  const disabled = status === 'disabled';
  values.disabled_at = disabled ? new Date() : null;
  values.disabled_reason = disabled ? 'Disabled by a user.' : null;
  if (!disabled) values.failing_since = null;
}

/**
 * Rules of every webhook-endpoint write, whichever route makes it: the URL passes the save-time target
 * policy, every event is in the catalog (or `*`), a new endpoint gets a secret, a new URL
 * needs verifying again, and enabling/disabling keeps `disabled_at`/`disabled_reason` in step.
 */
@Injectable()
export class WebhookEndpointHooks implements ResourceHooks {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly catalog: WebhookEventCatalog,
    private readonly visibility: EventVisibility,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  beforeCreate(_tx: unknown, values: Record<string, unknown>): void {
    const kept = keepStoredCredentials(values, undefined, this.config);
    this.check(values, undefined, [...kept, ...this.destination(values)]);
    values.events ??= ['*'];
    this.mayReceive(values.events as string[]);
    values.max_in_flight ??= this.config.webhooks.endpointConcurrency;
    values.secret ??= encryptSecret(generateSecret(), this.config.appKey);
    if (values.status === 'disabled') setStatus(values, 'disabled');
  }

  beforeUpdate(_tx: unknown, before: ResourceRow, values: Record<string, unknown>): void {
    // Enabling re-checks the stored URL too: a row saved before the policy tightened must not come back.
    const enabling = values.status === 'enabled' && before.status !== 'enabled';
    const kept = [
      ...keepStoredCredentials(values, before as Parameters<typeof keepStoredCredentials>[1], this.config),
      ...this.destination(values, before as StoredDestination),
    ];
    const type = (values.type ?? before.type) as string;
    // A broker endpoint's url is its config's, checked there (an enabling re-check included).
    const recheck = enabling && values.url === undefined && type === HTTP_TYPE;
    if (enabling && BROKER_TYPES.has(type) && values.config === undefined)
      kept.push(...this.recheckBroker(before));
    this.check(values, recheck ? (before.url as string) : undefined, kept, type);
    // Where its events go and what they carry: the caller must read all that it subscribes to.
    if (RECEIVES.some((field) => values[field] !== undefined))
      this.mayReceive((values.events ?? before.events) as string[]);
    if (values.url !== undefined && values.url !== before.url) values.verified_at = null;
    if (values.status !== undefined && values.status !== before.status) setStatus(values, values.status);
  }

  async afterWrite(tx: WriteTransaction, change: ResourceChange): Promise<void> {
    const { record } = change;
    const filterSet = change.action === 'created' ? record.filter != null : change.changes?.filter;
    if (filterSet) await tx.sql.rows(...compiledFilterUpdate(record.uuid as string, record.filter));
    // Enabled or disabled through the API: told through the outbox, in this write's transaction.
    const status = change.changes?.status?.[1];
    if (status === 'enabled' || status === 'disabled') {
      tx.emit({
        name: `endpoint.${status}`,
        record: {
          id: record.uuid,
          webhook_endpoint_uuid: record.uuid,
          url: record.url,
          status,
          reason: 'manual',
          message: status === 'disabled' ? 'Disabled by a user.' : 'Enabled by a user.',
        },
      });
    }
  }

  /** The endpoint's type and config: checked, the config sealed (endpoint-config.ts). */
  private destination(values: Record<string, unknown>, before?: StoredDestination): ErrorObject[] {
    return sealDestination(values, before, this.config, this.endpoints.policy);
  }

  /** Enabling a broker endpoint re-checks its stored URL, as an http endpoint's is. */
  private recheckBroker(before: ResourceRow): ErrorObject[] {
    const url = (before.config as { url?: string } | null)?.url ?? '';
    const refusal = brokerUrlRefusal(url, BROKER_TYPES.get(before.type as string)!, this.endpoints.policy);
    return refusal
      ? [
          errorObject(422, `The URL is not allowed: ${refusal}.`, {
            source: { pointer: attributePointer('config', 'url') },
          }),
        ]
      : [];
  }

  /** An endpoint receives the data of its events: a caller may subscribe it only to events it may read. */
  private mayReceive(events: string[]): void {
    const lacking = this.visibility.lackingFor(events);
    if (lacking)
      throw insufficientPermission(
        lacking,
        `An endpoint receives the data of the events it subscribes to: subscribing it to ${events.includes('*') ? 'every event' : events.join(', ')} needs ${lacking}, which this key or session lacks.`,
      );
  }

  private check(
    values: Record<string, unknown>,
    storedUrl?: string,
    earlier: ErrorObject[] = [],
    type = (values.type ?? HTTP_TYPE) as string,
  ): void {
    const errors: ErrorObject[] = [...earlier];
    const url = typeof values.url === 'string' && type === HTTP_TYPE ? values.url : storedUrl;
    if (url !== undefined) {
      const refusal = this.endpoints.refusal(url);
      if (refusal) {
        errors.push(
          errorObject(422, `The URL is not allowed: ${refusal}.`, {
            source: { pointer: attributePointer('url') },
          }),
        );
      }
    }
    if (Array.isArray(values.events)) {
      values.events.forEach((event: string, index) => {
        if (event === '*' || this.catalog.has(event)) return;
        errors.push(
          errorObject(
            422,
            `"${event}" is not an event this platform emits: use names from GET /int/v1/webhook-events, or "*" for all.`,
            { source: { pointer: attributePointer('events', index) } },
          ),
        );
      });
      values.events = [...new Set(values.events as string[])];
    }
    // The DTO lets null through on optional fields; these two always have a value.
    for (const [field, expected] of Object.entries(NOT_NULL)) {
      if (values[field] === null) {
        errors.push(
          errorObject(422, `${field} cannot be null: send ${expected}.`, {
            source: { pointer: attributePointer(field) },
          }),
        );
      }
    }
    errors.push(...sealCredentials(values, this.config.appKey, (target) => this.endpoints.refusal(target)));
    const filterProblem = checkFilter(values);
    if (filterProblem) errors.push(filterProblem);
    if (errors.length) throw new ApiError(422, errors);
  }
}
