import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { OutboxWriter } from '@wharf/webhooks';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const L = '/int/v1/locations';
const W = '/inventory/int/v1/warehouses';

/**
 * How many statements one write sends to PostgreSQL (a real one: pg's client is only listened to). A
 * plain create or update — no nested object, no reference, no hooks — writes, reads back its record and
 * records its outbox event in one statement committed on its own; anything else is a transaction.
 */
describe('statements per write', () => {
  let api: TestApi;
  let db: DataSource;
  let acme: TestCompany;
  let other: TestCompany;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    acme = await createCompany(api, 'Acme');
    other = await createCompany(api, 'Other');
  });
  afterAll(() => api.close());

  /** Every statement sent while `request` runs, by connection. */
  async function statementsDuring(request: () => Promise<unknown>): Promise<Map<Client, string[]>> {
    const byClient = new Map<Client, string[]>();
    const query = Client.prototype.query;
    const spy = function (this: Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      const list = byClient.get(this) ?? [];
      list.push(typeof first === 'string' ? first : (first?.text ?? ''));
      byClient.set(this, list);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    };
    Client.prototype.query = spy as typeof query;
    try {
      await request();
    } finally {
      Client.prototype.query = query;
    }
    return byClient;
  }

  /**
   * The statements of the write to `table`: the one statement when it ran alone, else its transaction
   * from START TRANSACTION to COMMIT.
   */
  function writeOf(byClient: Map<Client, string[]>, table: string, verb: 'INSERT INTO' | 'UPDATE'): string[] {
    for (const list of byClient.values()) {
      const write = list.findIndex((text) => text.includes(`${verb} "${table}"`));
      if (write < 0) continue;
      const start = list.lastIndexOf('START TRANSACTION', write);
      const end = list.indexOf('COMMIT', write);
      return start < 0 ? [list[write]] : list.slice(start, end + 1);
    }
    throw new Error(`no statement wrote ${table}`);
  }

  async function lastEvent(name: string) {
    const [event] = await db.query(
      `SELECT payload::text AS body FROM webhook_events WHERE company_uuid = $1 AND name = $2 ORDER BY id DESC LIMIT 1`,
      [acme.uuid, name],
    );
    return JSON.parse(event.body);
  }

  async function createLocation(company = acme) {
    const res = await http(api.url, 'POST', L, {
      key: company.key,
      body: { location: { name: 'HQ', city: 'Austin', latitude: 30.27 } },
    });
    expect(res.status).toBe(201);
    return res.body.location;
  }

  const warehouse = (extra: Record<string, unknown> = {}) => ({
    warehouse: {
      name: 'Main',
      address: '1 Dock St',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      capacity: 1,
      ...extra,
    },
  });

  it('a plain POST is one statement: insert, read-back with embeds, outbox row and NOTIFY', async () => {
    let res: any;
    const statements = writeOf(
      await statementsDuring(async () => {
        res = await http(api.url, 'POST', W, { key: acme.key, body: warehouse({ capacity: 10 }) });
      }),
      'warehouses',
      'INSERT INTO',
    );
    expect(res.status).toBe(201);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /INSERT INTO "warehouses"[\s\S]*INSERT INTO "webhook_events"[\s\S]*pg_notify/,
    );
    // A record this statement inserts has no children yet: its to-many embeds are empty without reading
    // the child tables, which a create would otherwise read for nothing.
    expect(statements[0]).not.toMatch(/warehouse_sections|warehouse_docks/);
    expect(statements[0]).toMatch(/FROM "locations"/);
    const record = res.body.warehouse;
    expect(record).toMatchObject({
      id: record.uuid,
      name: 'Main',
      capacity: 10,
      location: null,
      sections: [],
      docks: [],
    });

    // The envelope PostgreSQL built has changeEnvelope's shape, around the record exactly as served.
    const envelope = await lastEvent('warehouse.created');
    expect(Object.keys(envelope)).toEqual(['id', 'api_version', 'event', 'created_at', 'data']);
    expect(envelope).toMatchObject({ api_version: 'v1', event: 'warehouse.created' });
    expect(envelope.id).toMatch(/^evt_/);
    expect(new Date(envelope.created_at).toISOString()).toBe(envelope.created_at);
    expect(envelope.data).toEqual({ ...record, additionalData: {} });
  });

  it('a POST with a nested object or a reference is a transaction', async () => {
    const location = await createLocation();
    for (const body of [
      warehouse({ sections: [{ name: 'Aisle 1' }] }),
      warehouse({ location_uuid: location.uuid }),
    ]) {
      let res: any;
      const statements = writeOf(
        await statementsDuring(async () => {
          res = await http(api.url, 'POST', W, { key: acme.key, body });
        }),
        'warehouses',
        'INSERT INTO',
      );
      expect(res.status).toBe(201);
      expect(statements[0]).toBe('START TRANSACTION');
      expect(statements.at(-1)).toBe('COMMIT');
    }
  });

  it('a plain PUT is one statement: lock, update, read-back with embeds, outbox row', async () => {
    const created = await http(api.url, 'POST', W, {
      key: acme.key,
      body: warehouse({ capacity: 10, sections: [{ name: 'Aisle 1' }] }),
    });
    expect(created.status).toBe(201);
    const before = created.body.warehouse;
    let res: any;
    const statements = writeOf(
      await statementsDuring(async () => {
        res = await http(api.url, 'PUT', `${W}/${before.uuid}`, {
          key: acme.key,
          body: { warehouse: { city: 'Dallas', capacity: 12, name: 'Main' } },
        });
      }),
      'warehouses',
      'UPDATE',
    );
    expect(res.status).toBe(200);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(
      /FOR UPDATE NOWAIT[\s\S]*UPDATE "warehouses"[\s\S]*INSERT INTO "webhook_events"/,
    );
    const record = res.body.warehouse;
    expect(record).toMatchObject({ city: 'Dallas', capacity: 12, sections: [{ name: 'Aisle 1' }] });
    expect(record.updated_at > before.updated_at).toBe(true);

    // The event carries the previous values of what changed, and only of that, as served.
    const envelope = await lastEvent('warehouse.updated');
    expect(envelope.data).toEqual({
      ...record,
      additionalData: { changes: { city: ['Austin', 'Dallas'], capacity: [10, 12] } },
    });
  });

  it('a PUT of a record another transaction holds waits for it, and reads back what it committed', async () => {
    const created = await http(api.url, 'POST', W, { key: acme.key, body: warehouse() });
    const uuid = created.body.warehouse.uuid;
    const holder = new Client({ connectionString: api.config.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM warehouses WHERE uuid = $1 FOR UPDATE', [uuid]);
      await holder.query(
        `INSERT INTO warehouse_sections (company_uuid, warehouse_uuid, name) VALUES ($1, $2, 'Added meanwhile')`,
        [acme.uuid, uuid],
      );
      const put = http(api.url, 'PUT', `${W}/${uuid}`, {
        key: acme.key,
        body: { warehouse: { city: 'Dallas' } },
      });
      // The positive signal that the PUT is waiting: a backend blocked on the holder's lock.
      const holderPid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      for (let waiting = 0; !waiting;) {
        const [row] = await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
          [holderPid],
        );
        waiting = row.n;
      }
      await holder.query('COMMIT');
      const res = await put;
      expect(res.status).toBe(200);
      expect(res.body.warehouse).toMatchObject({ city: 'Dallas', sections: [{ name: 'Added meanwhile' }] });
    } finally {
      await holder.end();
    }
  });

  it('a PUT that changes nothing writes nothing: no UPDATE, updated_at kept, no event', async () => {
    const location = await createLocation();
    const count = async () =>
      Number(
        (await db.query(`SELECT count(*) AS n FROM webhook_events WHERE company_uuid = $1`, [acme.uuid]))[0]
          .n,
      );
    const events = await count();
    const res = await http(api.url, 'PUT', `${L}/${location.uuid}`, {
      key: acme.key,
      body: { location: { city: 'Austin', latitude: 30.27 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.location).toEqual(location);
    expect(await count()).toBe(events);
  });

  it('a write of a shape already seen reuses its statement with its own values and event', async () => {
    const writer = api.app.get(OutboxWriter);
    const built = jest.spyOn(writer, 'inStatement');
    try {
      const names = ['Shape A', 'Shape B', 'Shape C'];
      const created = [];
      for (const name of names) {
        const res = await http(api.url, 'POST', W, { key: acme.key, body: warehouse({ name, capacity: 7 }) });
        expect(res.status).toBe(201);
        created.push(res.body.warehouse);
        expect(created.at(-1)).toMatchObject({ name, capacity: 7, company_uuid: acme.uuid });
      }
      for (const [i, warehouse] of created.entries()) {
        const res = await http(api.url, 'PUT', `${W}/${warehouse.uuid}`, {
          key: acme.key,
          body: { warehouse: { capacity: 10 + i } },
        });
        expect(res.body.warehouse).toMatchObject({ uuid: warehouse.uuid, name: names[i], capacity: 10 + i });
      }
      // One build per shape (the create's columns, the update's), none if an earlier test built them; 6 without.
      expect(built.mock.calls.length).toBeLessThanOrEqual(2);
      const events: {
        event_id: string;
        payload: { id: string; event: string; created_at: string; data: { uuid: string; capacity: number } };
      }[] = await db.query(
        `SELECT event_id, payload FROM webhook_events WHERE company_uuid = $1 AND payload->'data'->>'uuid' = ANY($2)
           ORDER BY id`,
        [acme.uuid, created.map((w) => w.uuid)],
      );
      expect(events.map((e) => [e.payload.event, e.payload.data.uuid, e.payload.data.capacity])).toEqual([
        ...created.map((w) => ['warehouse.created', w.uuid, 7]),
        ...created.map((w, i) => ['warehouse.updated', w.uuid, 10 + i]),
      ]);
      expect(new Set(events.map((e) => e.event_id)).size).toBe(6);
      for (const event of events) expect(event.payload.id).toBe(event.event_id);
    } finally {
      built.mockRestore();
    }
  });

  it("another company's record is a 404 and stays as it was", async () => {
    const location = await createLocation(other);
    const res = await http(api.url, 'PUT', `${L}/${location.uuid}`, {
      key: acme.key,
      body: { location: { city: 'Dallas' } },
    });
    expect(res.status).toBe(404);
    const mine = await http(api.url, 'GET', `${L}/${location.uuid}`, { key: other.key });
    expect(mine.body.location).toEqual(location);
  });
});
