import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { startApi, TestApi } from './support/test-app';

const L = '/int/v1/locations';
const W = '/inventory/int/v1/warehouses';

/**
 * How many statements one PUT sends to PostgreSQL (a real one: pg's client is only listened to). A
 * plain update — no nested object, no reference, no hooks — locks, writes and reads back its record in
 * one statement: BEGIN, that statement, the outbox insert, COMMIT.
 */
describe('statements per PUT', () => {
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

  /** The statements of the transaction that wrote `table`: from its START TRANSACTION to its COMMIT. */
  function writeOf(byClient: Map<Client, string[]>, table: string): string[] {
    for (const list of byClient.values()) {
      const write = list.findIndex((text) => /\bUPDATE\b/.test(text) && text.includes(`"${table}"`));
      if (write < 0) continue;
      const start = list.lastIndexOf('START TRANSACTION', write);
      const end = list.indexOf('COMMIT', write);
      return list.slice(start, end + 1);
    }
    throw new Error(`no statement updated ${table}`);
  }

  async function createLocation(company = acme) {
    const res = await http(api.url, 'POST', L, {
      key: company.key,
      body: { location: { name: 'HQ', city: 'Austin', latitude: 30.27 } },
    });
    expect(res.status).toBe(201);
    return res.body.location;
  }

  it('a plain PUT is BEGIN, one statement (lock + update + read-back), the outbox insert, COMMIT', async () => {
    const location = await createLocation();
    let res: any;
    const statements = writeOf(
      await statementsDuring(async () => {
        res = await http(api.url, 'PUT', `${L}/${location.uuid}`, {
          key: acme.key,
          body: { location: { city: 'Dallas', latitude: 32.78, name: 'HQ' } },
        });
      }),
      'locations',
    );
    expect(res.status).toBe(200);
    expect(res.body.location).toMatchObject({
      uuid: location.uuid,
      city: 'Dallas',
      latitude: 32.78,
      name: 'HQ',
    });
    expect(res.body.location.updated_at >= location.updated_at).toBe(true);
    expect(statements).toHaveLength(4);
    expect(statements[0]).toBe('START TRANSACTION');
    expect(statements[1]).toMatch(/FOR UPDATE[\s\S]*UPDATE "locations"/);
    expect(statements[2]).toMatch(/INSERT INTO "webhook_events"/);
    expect(statements[3]).toBe('COMMIT');

    // The event still carries the previous values of what changed, and only of that.
    const [event] = await db.query(
      `SELECT payload FROM webhook_events WHERE company_uuid = $1 AND name = 'location.updated' ORDER BY id DESC LIMIT 1`,
      [acme.uuid],
    );
    const payload = typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload;
    expect(payload.data.additionalData.changes).toEqual({
      city: ['Austin', 'Dallas'],
      latitude: [30.27, 32.78],
    });
    expect(payload.data).toMatchObject({ uuid: location.uuid, city: 'Dallas' });
  });

  it('a resource with embedded relationships reads them back in a statement of its own', async () => {
    const created = await http(api.url, 'POST', W, {
      key: acme.key,
      body: {
        warehouse: {
          name: 'Main',
          address: '1 Dock St',
          city: 'Austin',
          state: 'TX',
          zip: '78701',
          capacity: 10,
          sections: [{ name: 'Aisle 1' }],
        },
      },
    });
    expect(created.status).toBe(201);
    const warehouse = created.body.warehouse;
    let res: any;
    const statements = writeOf(
      await statementsDuring(async () => {
        res = await http(api.url, 'PUT', `${W}/${warehouse.uuid}`, {
          key: acme.key,
          body: { warehouse: { city: 'Dallas' } },
        });
      }),
      'warehouses',
    );
    expect(res.status).toBe(200);
    expect(res.body.warehouse).toMatchObject({ city: 'Dallas', sections: [{ name: 'Aisle 1' }] });
    expect(statements).toHaveLength(5);
    expect(statements[1]).toMatch(/FOR UPDATE[\s\S]*UPDATE "warehouses"/);
    expect(statements[2]).toMatch(/^SELECT json_build_object/);
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
