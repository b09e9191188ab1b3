import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { APP_CONFIG, ApiError, AppConfig } from '@wharf/core';
import { DataSource } from 'typeorm';
import { urlRefusal } from '../delivery/target-policy';
import { encryptSecret, generateSecret } from './secrets';

export interface NewEndpoint {
  url: string;
  events: string[];
  description?: string | null;
}

/** Columns of an endpoint that may be shown (never the secrets). */
export const PUBLIC_ENDPOINT_COLUMNS = [
  'uuid',
  'company_uuid',
  'url',
  'description',
  'events',
  'status',
  'disabled_reason',
  'disabled_at',
  'verified_at',
  'api_version',
  'created_at',
  'updated_at',
];

@Injectable()
export class WebhookEndpointsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The save-time half of the target policy (DESIGN.md 6.6); the connect-time half is in the dispatcher. */
  refusal(url: string): string | undefined {
    return urlRefusal(url, {
      httpsOnly: this.config.nodeEnv === 'production',
      allowPrivate: this.config.webhooks.allowPrivateTargets,
    });
  }

  async create(
    companyUuid: string,
    input: NewEndpoint,
  ): Promise<{ endpoint: Record<string, unknown>; secret: string }> {
    const refusal = this.refusal(input.url);
    if (refusal) throw ApiError.invalid('/webhook_endpoint/url', `The URL is not allowed: ${refusal}.`);
    const secret = generateSecret();
    const [endpoint] = await this.dataSource.query(
      `INSERT INTO webhook_endpoints (company_uuid, url, description, events, secret)
       VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING ${PUBLIC_ENDPOINT_COLUMNS.join(', ')}`,
      [
        companyUuid,
        input.url,
        input.description ?? null,
        JSON.stringify(input.events),
        encryptSecret(secret, this.config.appKey),
      ],
    );
    return { endpoint, secret };
  }
}
