import { WebhookEndpointsService } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { TestCompany } from './accounts';
import { REDIS_URL, TestApi } from './test-app';

export const FAST_WEBHOOKS = {
  WEBHOOKS_RETRY_SCHEDULE: '100ms,200ms',
  WEBHOOKS_TIMEOUT_MS: '1000',
  WEBHOOKS_POLL_INTERVAL: '200ms',
  WEBHOOKS_SWEEP_GRACE: '1s',
};

/** The environment of a worker process started beside `api` (its database, queue prefix, fast retries). */
export function workerEnv(api: TestApi, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: api.config.databaseUrl,
    REDIS_URL,
    QUEUE_PREFIX: api.config.queuePrefix,
    NODE_ENV: 'test',
    ...FAST_WEBHOOKS,
    ...extra,
  };
}

export async function createEndpoint(
  api: TestApi,
  company: TestCompany,
  url: string,
  events: string[] = ['*'],
) {
  return api.app.get(WebhookEndpointsService).create(company.uuid, { url, events });
}

export function warehouse(name: string, extra: Record<string, unknown> = {}) {
  return {
    warehouse: {
      name,
      address: '1 Quay',
      city: 'Rotterdam',
      state: 'ZH',
      zip: '3011',
      capacity: 10,
      ...extra,
    },
  };
}

export function sql(api: TestApi, text: string, params: unknown[] = []): Promise<any[]> {
  return api.app.get(DataSource).query(text, params);
}

/**
 * How many events reached the endpoint: a delivered delivery is deleted, its successful attempt stays in
 * the request log.
 */
export async function deliveredCount(api: TestApi, endpoint: unknown): Promise<number> {
  const [row] = await sql(
    api,
    `SELECT count(DISTINCT event_id)::int AS n FROM webhook_request_logs
     WHERE webhook_endpoint_uuid = $1 AND status = 'successful' AND NOT test`,
    [endpoint],
  );
  return row.n;
}
