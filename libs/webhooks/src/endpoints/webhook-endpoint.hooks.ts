import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  ApiError,
  AppConfig,
  ErrorObject,
  ResourceHooks,
  ResourceRow,
  errorObject,
} from '@wharf/core';
import { WebhookEventCatalog } from '../management/webhook-event-catalog.service';
import { encryptSecret, generateSecret } from './secrets';
import { WebhookEndpointsService } from './webhook-endpoints.service';

const POINTER = '/webhook_endpoint';

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  beforeCreate(_tx: unknown, values: Record<string, unknown>): void {
    this.check(values);
    values.events ??= ['*'];
    values.secret ??= encryptSecret(generateSecret(), this.config.appKey);
    if (values.status === 'disabled') setStatus(values, 'disabled');
  }

  beforeUpdate(_tx: unknown, before: ResourceRow, values: Record<string, unknown>): void {
    // Enabling re-checks the stored URL too: a row saved before the policy tightened must not come back.
    const enabling = values.status === 'enabled' && before.status !== 'enabled';
    this.check(values, enabling && values.url === undefined ? (before.url as string) : undefined);
    if (values.url !== undefined && values.url !== before.url) values.verified_at = null;
    if (values.status !== undefined && values.status !== before.status) setStatus(values, values.status);
  }

  private check(values: Record<string, unknown>, storedUrl?: string): void {
    const errors: ErrorObject[] = [];
    const url = typeof values.url === 'string' ? values.url : storedUrl;
    if (url !== undefined) {
      const refusal = this.endpoints.refusal(url);
      if (refusal) {
        errors.push(
          errorObject(422, `The URL is not allowed: ${refusal}.`, { source: { pointer: `${POINTER}/url` } }),
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
            { source: { pointer: `${POINTER}/events/${index}` } },
          ),
        );
      });
      values.events = [...new Set(values.events as string[])];
    }
    if (errors.length) throw new ApiError(422, errors);
  }
}
