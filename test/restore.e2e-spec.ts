import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { deleteKeysWithPrefix, dropDatabase, ensureDatabase } from '@wharf/core';
import { createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi, testConfig } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';

/**
 * PostgreSQL is the source of truth: a pg_dump restored into a new database, with an empty Redis, delivers
 * every pending delivery (retrying, held behind an earlier one of its record, not yet fanned out) in order
 * and under its original webhook-id.
 */
describe('backup and restore', () => {
  // The same APP_KEY on both sides: the endpoints' secrets are encrypted under it (backed up with the dump's config).
  const env = {
    ...FAST_WEBHOOKS,
    WEBHOOKS_RETRY_SCHEDULE: '3s',
    APP_KEY: randomBytes(32).toString('base64'),
  };
  const dir = mkdtempSync(join(tmpdir(), 'wharf-dump-'));
  const restored = testConfig(env);
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env });
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
    await dropDatabase(restored.databaseUrl);
    await deleteKeysWithPrefix(restored, restored.queuePrefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a dump restored with an empty Redis delivers every pending delivery in order with its webhook-id', async () => {
    const acme = await createCompany(api, 'Restore');
    await createEndpoint(api, acme, `${receiver.url}/plain`, ['warehouse.created']);
    const { endpoint: ordered } = await createEndpoint(api, acme, `${receiver.url}/ordered`, [
      'warehouse.updated',
    ]);
    await sql(api, `UPDATE webhook_endpoints SET ordering = 'entity' WHERE uuid = $1`, [ordered.uuid]);
    receiver.respond = () => ({ status: 503 });
    worker = await startWorker(api.config);
    const a = (await http(api.url, 'POST', W, { key: acme.key, body: warehouse('A') })).body.warehouse.uuid;
    for (const name of ['A1', 'A2', 'A3'])
      expect(
        (await http(api.url, 'PUT', `${W}/${a}`, { key: acme.key, body: { warehouse: { name } } })).status,
      ).toBe(200);
    // The first attempts failed (retrying); the later updates wait behind the first for the ordered endpoint.
    await eventually(async () => {
      const rows = await sql(
        api,
        `SELECT status FROM webhook_deliveries WHERE company_uuid = $1 ORDER BY status`,
        [acme.uuid],
      );
      return rows.map((r) => r.status).join() === 'retrying,retrying,waiting,waiting';
    });
    await worker.close();
    worker = undefined;
    // Written while no worker runs: not fanned out yet.
    const b = (await http(api.url, 'POST', W, { key: acme.key, body: warehouse('B') })).body.warehouse.uuid;
    const events = await sql(
      api,
      `SELECT event_id, name, payload->'data'->>'id' AS record FROM webhook_events WHERE company_uuid = $1 ORDER BY id`,
      [acme.uuid],
    );
    const created = events.filter((e) => e.name === 'warehouse.created').map((e) => e.event_id);
    const updates = events.filter((e) => e.name === 'warehouse.updated').map((e) => e.event_id);
    expect(created).toHaveLength(2);
    expect(updates).toHaveLength(3);
    expect(events.find((e) => e.record === b)).toBeDefined();

    const dump = join(dir, 'wharf.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${api.config.databaseUrl}`]);
    await ensureDatabase(restored.databaseUrl);
    execFileSync('pg_restore', ['--no-owner', `--dbname=${restored.databaseUrl}`, dump]);

    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200 });
    worker = await startWorker(restored);
    const ids = (path: string) =>
      receiver.requests.filter((r) => r.path === path).map((r) => r.headers['webhook-id']);
    await eventually(async () => ids('/plain').length === 2 && ids('/ordered').length === 3, 30_000);
    expect(new Set(ids('/plain'))).toEqual(new Set(created));
    expect(ids('/ordered')).toEqual(updates);
    // Nothing pending is left, and nothing arrived twice.
    await eventually(async () => {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: restored.databaseUrl });
      await client.connect();
      try {
        return (await client.query('SELECT 1 FROM webhook_deliveries')).rows.length === 0;
      } finally {
        await client.end();
      }
    });
    expect(receiver.requests).toHaveLength(5);
  }, 60_000);
});
