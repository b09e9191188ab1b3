import { Logger } from '@nestjs/common';
import { HealthService, OutageMonitor, dropDatabase, ensureDatabase } from '@wharf/core';
import { OUTBOX_SIGNAL_APPLICATION, OutboxSignal } from '@wharf/webhooks';
import { Client, Notification } from 'pg';
import { createCompany, TestCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { startApi, TestApi } from './support/test-app';
import { sql, warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';

/**
 * An api write wakes the relay after it committed, from the api's signal connection: a NOTIFY in the
 * write's own transaction would hold PostgreSQL's cluster-wide notify lock through its commit, and every
 * notifying write would commit one after the other.
 */
describe('outbox signal: the relay is woken after the write, not inside it', () => {
  let api: TestApi;
  let listener: Client;
  let acme: TestCompany;
  const heard: Notification[] = [];

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Signals');
    listener = new Client({ connectionString: api.config.databaseUrl });
    await listener.connect();
    listener.on('notification', (message) => heard.push(message));
    await listener.query('LISTEN wharf_webhook_events');
  });
  afterAll(async () => {
    await listener?.end();
    await api?.close();
  });

  const notifier = async (message: Notification) => {
    const [row] = await sql(api, 'SELECT application_name FROM pg_stat_activity WHERE pid = $1', [
      message.processId,
    ]);
    return row?.application_name as string | undefined;
  };

  it('a create, an update and a write in a transaction are each signalled by the signal connection', async () => {
    const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse('Signalled') });
    expect(created.status).toBe(201);
    const first = await eventually(async () => heard.length > 0 && heard[0]);
    expect(await notifier(first)).toBe(OUTBOX_SIGNAL_APPLICATION);

    const uuid = created.body.warehouse.uuid as string;
    const before = heard.length;
    const updated = await http(api.url, 'PUT', `${W}/${uuid}`, {
      key: acme.key,
      body: { warehouse: { name: 'Signalled again' } },
    });
    expect(updated.status).toBe(200);
    const second = await eventually(async () => heard.length > before && heard[heard.length - 1]);
    expect(await notifier(second)).toBe(OUTBOX_SIGNAL_APPLICATION);

    // A create with children is a transaction (its events written by the outbox before its COMMIT).
    const third = heard.length;
    const nested = await http(api.url, 'POST', W, {
      key: acme.key,
      body: warehouse('Nested', { sections: [{ name: 'S1' }] }),
    });
    expect(nested.status).toBe(201);
    const signal = await eventually(async () => heard.length > third && heard[heard.length - 1]);
    expect(await notifier(signal)).toBe(OUTBOX_SIGNAL_APPLICATION);

    // The outbox holds the events, queued for the relay.
    const queued = await sql(
      api,
      `SELECT e.name FROM webhook_events e JOIN webhook_events_undispatched u ON u.id = e.id
       WHERE e.company_uuid = $1 ORDER BY e.id`,
      [acme.uuid],
    );
    expect(queued.map((row) => row.name).sort()).toEqual([
      'warehouse.created',
      'warehouse.created',
      'warehouse.updated',
      'warehouse_section.created',
    ]);
  });

  it('a signal on its way when the api shuts down still goes out, and nothing is logged of it', async () => {
    // A database of its own: whatever NOTIFY arrives there is this signal's.
    const url = new URL(api.config.databaseUrl);
    url.pathname = `${url.pathname}_signal`;
    await ensureDatabase(url.toString());
    const own = new Client({ connectionString: url.toString() });
    const warned = jest.spyOn(Logger.prototype, 'warn');
    try {
      await own.connect();
      const signals: Notification[] = [];
      own.on('notification', (message) => signals.push(message));
      await own.query('LISTEN wharf_webhook_events');
      const signal = new OutboxSignal(
        { ...api.config, databaseUrl: url.toString() },
        api.app.get(OutageMonitor),
      );
      signal.poke();
      // Its connection is still being opened: shutdown used to close it under the NOTIFY.
      await signal.onApplicationShutdown();
      expect(await eventually(async () => signals.length === 1)).toBe(true);
      expect(warned.mock.calls.filter(([message]) => String(message).includes('could not wake'))).toEqual([]);
    } finally {
      warned.mockRestore();
      await own.end();
      await dropDatabase(url.toString());
    }
  });

  it("a signal PostgreSQL refuses is the outage monitor's to log, once, and no warning of its own", async () => {
    const refused = new URL(api.config.databaseUrl);
    refused.port = String(await freePort());
    const monitor = new OutageMonitor(api.app.get(HealthService));
    const warned = jest.spyOn(Logger.prototype, 'warn');
    try {
      const signal = new OutboxSignal({ ...api.config, databaseUrl: refused.toString() }, monitor);
      signal.poke();
      await eventually(async () => monitor.isDown('database'));
      const lines = warned.mock.calls.map(([line]) => JSON.stringify(line));
      expect(lines.filter((line) => line.includes('could not wake'))).toEqual([]);
      expect(lines.filter((line) => line.includes('database unavailable'))).toHaveLength(1);
      await signal.onApplicationShutdown();
    } finally {
      warned.mockRestore();
      monitor.onApplicationShutdown();
    }
  });
});
