import { INestApplicationContext } from '@nestjs/common';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { CLI, assertBuilt, runNode } from './support/processes';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';

describe('companies:delete', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;

  beforeAll(async () => {
    assertBuilt();
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    receiver.respond = (request) => (request.path.endsWith('/fail') ? { status: 500 } : { status: 200 });
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  const cli = async (...args: string[]) => {
    const run = runNode(CLI, args, {
      DATABASE_URL: api.config.databaseUrl,
      REDIS_URL: api.config.redisUrl,
      QUEUE_PREFIX: api.config.queuePrefix,
      NODE_ENV: 'test',
    });
    const { code } = await run.exited;
    return { code, output: run.output() };
  };

  /** Rows of the company in every table (partitions included) that has a company_uuid column. */
  async function rowsOf(company: string): Promise<Record<string, number>> {
    const tables = await sql(
      api,
      `SELECT c.relname AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       WHERE a.attname = 'company_uuid' AND NOT a.attisdropped AND c.relkind = 'r'
         AND c.relnamespace = current_schema()::regnamespace`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of tables)
      counts[name] = (
        await sql(api, `SELECT count(*)::int AS n FROM "${name}" WHERE company_uuid = $1`, [company])
      )[0].n;
    counts.companies = (
      await sql(api, 'SELECT count(*)::int AS n FROM companies WHERE uuid = $1', [company])
    )[0].n;
    return counts;
  }

  /** A company with records, an endpoint, events, a failed delivery and request logs. */
  async function populated(name: string): Promise<TestCompany> {
    const company = await createCompany(api, name);
    await createEndpoint(api, company, `${receiver.url}/${name}/ok`);
    await createEndpoint(api, company, `${receiver.url}/${name}/fail`);
    for (const i of [1, 2, 3])
      expect(
        (await http(api.url, 'POST', W, { key: company.key, body: warehouse(`${name} ${i}`) })).status,
      ).toBe(201);
    await eventually(async () => {
      const [{ n }] = await sql(
        api,
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE company_uuid = $1 AND status = 'failed'`,
        [company.uuid],
      );
      return n === 3;
    }, 20_000);
    return company;
  }

  it('--dry-run counts and changes nothing; the delete leaves no row of the company in any table, and another company untouched', async () => {
    const gone = await populated('gone');
    const kept = await populated('kept');
    const before = await rowsOf(gone.uuid);
    const keptBefore = await rowsOf(kept.uuid);
    for (const table of [
      'companies',
      'api_keys',
      'warehouses',
      'webhook_endpoints',
      'webhook_deliveries',
      'webhook_request_log_search_keys',
    ])
      expect(before[table]).toBeGreaterThan(0);
    const events = Object.entries(before).filter(([t]) => t.startsWith('webhook_events_'));
    expect(events.reduce((n, [, c]) => n + c, 0)).toBeGreaterThanOrEqual(3);

    const dry = await cli('companies:delete', gone.uuid, '--dry-run');
    expect(dry.code).toBe(0);
    const report = JSON.parse(dry.output.trim());
    expect(report).toMatchObject({ company: gone.uuid, dry_run: true });
    expect(report.rows.webhook_events).toBeGreaterThanOrEqual(3);
    expect(report.rows.webhook_request_logs).toBeGreaterThanOrEqual(6);
    expect(report.rows.webhook_deliveries).toBe(3);
    expect(await rowsOf(gone.uuid)).toEqual(before);

    const done = await cli('companies:delete', gone.uuid);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.output.trim()).rows).toEqual(report.rows);
    const after = await rowsOf(gone.uuid);
    expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
    expect(Object.keys(after).length).toBeGreaterThan(10);
    expect(await rowsOf(kept.uuid)).toEqual(keptBefore);

    expect((await cli('companies:delete', gone.uuid)).code).toBe(2);
    expect((await cli('companies:delete', 'not-a-uuid')).code).toBe(2);
  }, 60_000);
});
