import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  AppConfig,
  RequestContext,
  ResourceService,
  ResourceServices,
  readWriteBody,
} from '@wharf/core';
import { urlRefusal } from '../delivery/target-policy';
import { EndpointSecrets } from '../delivery/webhook-sender';
import { decryptSecret, encryptSecret, generateSecret } from './secrets';

export const WEBHOOK_ENDPOINT = 'webhook-endpoint';
/** How long a rotated-out secret keeps verifying (DESIGN.md 6.2). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export interface NewEndpoint {
  url: string;
  events: string[];
  description?: string | null;
}

type EndpointRecord = Record<string, unknown>;

/** An endpoint as stored: what a send needs (secrets still encrypted). */
export interface StoredEndpoint extends EndpointSecrets {
  uuid: string;
  company_uuid: string;
  status: string;
}

/**
 * Webhook endpoints of the caller's company, on the resource SDK (`webhook-endpoint`): creation with its
 * secret (shown once), secret reveal and rotation, enable/disable. Validation lives in WebhookEndpointHooks,
 * so it holds for every write. Every change bumps `updated_at`, which the worker's endpoint cache keys on.
 */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly services: ResourceServices,
  ) {}

  private get resource(): ResourceService {
    return this.services.for(WEBHOOK_ENDPOINT);
  }

  /** The save-time half of the target policy (DESIGN.md 6.6); the connect-time half is in the dispatcher. */
  refusal(url: string): string | undefined {
    return urlRefusal(url, {
      httpsOnly: this.config.nodeEnv === 'production',
      allowPrivate: this.config.webhooks.allowPrivateTargets,
    });
  }

  /** `POST /webhook-endpoints`: the one response that carries the secret. */
  async createFromBody(body: unknown): Promise<{ webhook_endpoint: EndpointRecord & { secret: string } }> {
    const resource = this.resource;
    const input = readWriteBody(resource.def, body, false);
    const secret = generateSecret();
    const values = { ...input.values, secret: encryptSecret(secret, this.config.appKey) };
    const record = await resource.transaction((tx) => resource.createIn(tx, { ...input, values }));
    return { webhook_endpoint: { ...record, secret } };
  }

  /** Creates an endpoint for a company outside a request (tests, benchmarks, admin tasks). */
  async create(
    companyUuid: string,
    input: NewEndpoint,
  ): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const created = await RequestContext.run({ companyUuid }, () =>
      this.createFromBody({ webhook_endpoint: input }),
    );
    const { secret, ...endpoint } = created.webhook_endpoint;
    return { endpoint, secret };
  }

  /** The stored row of the caller's endpoint, secrets included (encrypted); 404 for any other. */
  async stored(uuid: string): Promise<StoredEndpoint> {
    const resource = this.resource;
    return (await resource.transaction((tx) => resource.lockIn(tx, uuid))) as StoredEndpoint;
  }

  async revealSecret(uuid: string): Promise<{ secret: string }> {
    return { secret: decryptSecret((await this.stored(uuid)).secret, this.config.appKey) };
  }

  /** A new current secret; the old one keeps verifying (and is signed with) for 24 h. */
  async rotateSecret(uuid: string): Promise<{ webhook_endpoint: EndpointRecord & { secret: string } }> {
    const resource = this.resource;
    const secret = generateSecret();
    const record = await resource.transaction(async (tx) => {
      const before = await resource.lockIn(tx, uuid);
      return resource.setColumnsIn(tx, uuid, {
        secret: encryptSecret(secret, this.config.appKey),
        previous_secret: before.secret,
        previous_secret_expires_at: new Date(Date.now() + PREVIOUS_SECRET_GRACE_MS),
      });
    });
    return { webhook_endpoint: { ...record, secret } };
  }

  enable(uuid: string) {
    return this.resource.update(uuid, { status: 'enabled' });
  }

  disable(uuid: string) {
    return this.resource.update(uuid, { status: 'disabled' });
  }

  /** Records a passed ownership challenge. */
  async markVerified(uuid: string) {
    const resource = this.resource;
    const record = await resource.transaction((tx) =>
      resource.setColumnsIn(tx, uuid, { verified_at: new Date() }),
    );
    return { webhook_endpoint: record };
  }
}
