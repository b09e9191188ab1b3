import { connectionOptions } from '@wharf/core';
import {
  ADMIT,
  DISPATCH_BATCH,
  DUE_ENDPOINTS,
  RECORD_ATTEMPTS,
  WORKER_DATABASE_SETTINGS,
} from '@wharf/webhooks/worker';
import { Client } from 'pg';
import { createCompany } from './support/accounts';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql } from './support/webhooks';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The sequential scans in the generic plan a worker connection makes for `text`. */
async function sequentialScans(client: Client, name: string, text: string): Promise<string[]> {
  const params = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  await client.query(`PREPARE ${name} AS ${text}`);
  const args = params ? `(${Array(params).fill('NULL').join(', ')})` : '';
  const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`);
  return nodes(rows[0]['QUERY PLAN'][0].Plan)
    .filter((node) => node['Node Type'] === 'Seq Scan')
    .map((node) => node['Relation Name']!);
}

/**
 * The worker's statements keep index plans however small or unanalysed its tables were when a connection
 * planned them: a generic plan is kept for the connection's life, and one that scanned webhook_deliveries
 * while it held a few hundred rows went on scanning it as it grew (bench:webhooks: 30% of PostgreSQL's CPU).
 */
describe('worker statements: index plans whatever the statistics', () => {
  let api: TestApi;
  let client: Client;

  beforeAll(async () => {
    api = await startApi();
    const company = await createCompany(api);
    const { endpoint } = await createEndpoint(api, company, 'http://127.0.0.1:9/hook');
    // A few hundred deliveries, never analysed, none due (so nothing would send them).
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload, dispatched_at)
       SELECT 'evt_plan_' || i, $1, 'warehouse.created', '{}', now() FROM generate_series(1, 500) i`,
      [company.uuid],
    );
    await sql(
      api,
      `INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid, next_attempt_at)
       SELECT 'evt_plan_' || i, $1, $2, now() + interval '1 day' FROM generate_series(1, 500) i`,
      [endpoint.uuid, company.uuid],
    );
    client = new Client({
      connectionString: api.config.databaseUrl,
      options: connectionOptions(WORKER_DATABASE_SETTINGS),
    });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await api?.close();
  });

  it.each([
    ['record_attempts', RECORD_ATTEMPTS],
    ['admit', ADMIT],
    ['due_endpoints', DUE_ENDPOINTS],
    ['dispatch_batch', DISPATCH_BATCH],
  ])('%s scans no table', async (name, text) => {
    expect(await sequentialScans(client, name, text)).toEqual([]);
  });
});
