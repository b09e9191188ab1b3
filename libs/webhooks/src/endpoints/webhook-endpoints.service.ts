import { Inject, Injectable } from '@nestjs/common';
import {
  APP_CONFIG,
  ApiError,
  AppConfig,
  RequestContext,
  ResourceService,
  ResourceServices,
  readWriteBody,
} from '@wharf/core';
import { DestinationEndpoint } from '../transport/destination';
import { TargetPolicy, targetPolicyOf, urlRefusal } from '../transport/target-policy';
import { EndpointSecrets } from '../transport/webhook-sender';
import { StoredDestination, openDestination } from './endpoint-config';
import { openCredentials } from './endpoint-credentials-open';
import { OpenedSecrets, openEndpointSecrets, validSecrets } from './endpoint-secrets';
import { UnreadableSecretError, encryptSecret, generateSecret, openSecret } from './secrets';

export const WEBHOOK_ENDPOINT = 'webhook-endpoint';
/** How long a rotated-out secret keeps verifying. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export interface NewEndpoint {
  /** An http endpoint's URL; a broker endpoint's is its `config.url`. */
  url?: string;
  events: string[];
  description?: string | null;
  type?: string;
  config?: Record<string, unknown>;
}

type EndpointRecord = Record<string, unknown>;
type SealedRow = { headers_sealed: string | null; auth_sealed: string | null };

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
    // By name, not by the entity class: the entity's hooks depend on this service (an import cycle).
    return this.services.for(this.services.registry.get(WEBHOOK_ENDPOINT).entity);
  }

  /** The target policy of this process: https only in production, private targets as configured. */
  get policy(): TargetPolicy {
    return targetPolicyOf(this.config);
  }

  /** The save-time half of the target policy; the connect-time half is in the dispatcher. */
  refusal(url: string): string | undefined {
    return urlRefusal(url, this.policy);
  }

  /**
   * `POST /webhook-endpoints`: the one response that carries the secret. `fixed`: values the api sets, not
   * the body (a listen session's type and url).
   */
  async createFromBody(
    body: unknown,
    fixed: Record<string, unknown> = {},
  ): Promise<{ webhook_endpoint: EndpointRecord & { secret: string } }> {
    const resource = this.resource;
    const input = readWriteBody(resource.def, body, false);
    const secret = generateSecret();
    const values = { ...input.values, ...fixed, secret: encryptSecret(secret, this.config.appKey) };
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

  /**
   * The endpoint's secrets, opened with APP_KEY or APP_KEY_PREVIOUS (and re-encrypted under APP_KEY when the
   * previous key opened them); 409 naming the endpoint when no key opens the current one.
   */
  private async open(endpoint: StoredEndpoint): Promise<OpenedSecrets> {
    const resource = this.resource;
    try {
      return await openEndpointSecrets(endpoint, this.config, (sql, params) =>
        resource.transaction((tx) => tx.sql.rows(sql, params)),
      );
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      throw ApiError.of(
        409,
        `${error.message}: set APP_KEY_PREVIOUS to the key it was saved with, or rotate the secret ` +
          `(POST /int/v1/webhook-endpoints/${endpoint.uuid}/rotate-secret) to issue a new one.`,
        { meta: { webhook_endpoint_uuid: endpoint.uuid } },
      );
    }
  }

  /** The secrets a send to this endpoint is signed with right now. */
  async secretsOf(endpoint: StoredEndpoint): Promise<string[]> {
    return validSecrets(await this.open(endpoint));
  }

  /**
   * The endpoint as a send to it needs it, as the worker sends: its valid secrets, headers and auth opened;
   * 409 naming the endpoint when no key opens them.
   */
  async destinationOf(uuid: string): Promise<DestinationEndpoint> {
    const endpoint = await this.stored(uuid);
    const secrets = await this.secretsOf(endpoint);
    const { unreadableSecret, headers, auth } = openCredentials(
      endpoint as unknown as SealedRow,
      this.config,
    );
    if (unreadableSecret) throw ApiError.of(409, `Webhook endpoint ${uuid}: ${unreadableSecret}.`);
    const { type, config, unreadable } = openDestination(
      endpoint as unknown as StoredDestination,
      this.config,
    );
    if (unreadable) throw ApiError.of(409, `Webhook endpoint ${uuid}: ${unreadable}.`);
    return { uuid, url: endpoint.url, type, config, secrets, headers, auth };
  }

  /** The endpoint's static headers with their values (API responses show the names only). */
  async revealHeaders(uuid: string): Promise<{ headers: Record<string, string> }> {
    const endpoint = (await this.stored(uuid)) as StoredEndpoint & { headers_sealed: string | null };
    const opened = openCredentials(
      { headers_sealed: endpoint.headers_sealed, auth_sealed: null },
      this.config,
    );
    if (opened.unreadableSecret)
      throw ApiError.of(409, `The headers of webhook endpoint ${uuid}: ${opened.unreadableSecret}.`);
    return { headers: opened.headers ?? {} };
  }

  async revealSecret(uuid: string): Promise<{ secret: string }> {
    return { secret: (await this.open(await this.stored(uuid))).current };
  }

  /**
   * A new current secret; the old one keeps verifying (and is signed with) for 24 h. An old secret no key
   * opens is dropped rather than kept: rotating is how an endpoint recovers from a lost APP_KEY.
   */
  async rotateSecret(uuid: string): Promise<{ webhook_endpoint: EndpointRecord & { secret: string } }> {
    const resource = this.resource;
    const secret = generateSecret();
    const record = await resource.transaction(async (tx) => {
      const before = await resource.lockIn(tx, uuid);
      const old = openSecret(before.secret as string, this.config);
      return resource.setColumnsIn(tx, uuid, {
        secret: encryptSecret(secret, this.config.appKey),
        previous_secret: old ? (old.resealed ?? before.secret) : null,
        previous_secret_expires_at: old ? new Date(Date.now() + PREVIOUS_SECRET_GRACE_MS) : null,
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
