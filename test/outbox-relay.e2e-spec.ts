import { randomUUID } from 'node:crypto';
import { FAN_OUT } from '@wharf/webhooks/worker';
import { Client } from 'pg';
import { createCompany, TestCompany } from './support/accounts';
import { executedLoops } from './support/plans';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql } from './support/webhooks';

interface Fanned {
  uuid: string | null;
  event_id: string | null;
  body: string | null;
  cap: number | null;
  admission: string | null;
  more: string | null;
  claimed: number | null;
}

/**
 * The relay's statement, run on its own (the api runs no worker): what it admits as it fans out, read from
 * the rows it returns and from the deliveries it leaves.
 */
describe('outbox relay: admission as it fans out', () => {
  let api: TestApi;
  let client: Client;

  beforeAll(async () => {
    api = await startApi();
    client = new Client({ connectionString: api.config.databaseUrl });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end();
    await api?.close();
  });

  /** Commits `n` events of the company to the outbox, oldest first; returns their ids. */
  async function publish(company: TestCompany, n: number): Promise<string[]> {
    const ids = Array.from({ length: n }, () => `evt_${randomUUID()}`);
    for (const id of ids) {
      const [{ seq }] = await sql(
        api,
        `INSERT INTO webhook_events (event_id, company_uuid, name, payload)
         VALUES ($1::text, $2, 'warehouse.created', json_build_object('type', 'warehouse.created', 'data', json_build_object('id', $1::text)))
         RETURNING id AS seq`,
        [id, company.uuid],
      );
      await sql(api, `INSERT INTO webhook_events_undispatched (id, event_id) VALUES ($1, $2)`, [seq, id]);
    }
    return ids;
  }

  async function dispatch() {
    const { rows } = await client.query<Fanned>(FAN_OUT);
    return {
      jobs: rows.filter((row) => row.uuid !== null),
      waiting: rows.flatMap((row) => (row.more === null ? [] : [row.more])),
      claimed: rows.find((row) => row.claimed !== null)?.claimed,
    };
  }

  /** Per event, whether its delivery to the endpoint is admitted. */
  async function admitted(endpoint: string): Promise<Record<string, boolean>> {
    const rows = await sql(
      api,
      `SELECT event_id, admitted_at IS NOT NULL AS admitted FROM webhook_deliveries
       WHERE webhook_endpoint_uuid = $1 AND status <> 'failed'`,
      [endpoint],
    );
    return Object.fromEntries(
      rows.map((row: { event_id: string; admitted: boolean }) => [row.event_id, row.admitted]),
    );
  }

  async function endpointOf(company: TestCompany, settings: string): Promise<string> {
    const { endpoint } = await createEndpoint(api, company, 'https://hooks.example.com/relay');
    const uuid = String(endpoint.uuid);
    await sql(api, `UPDATE webhook_endpoints SET ${settings} WHERE uuid = $1`, [uuid]);
    return uuid;
  }

  it('queues an event only with its event id (the relay looks events up by it, never by id alone)', async () => {
    const company = await createCompany(api, 'Queue keys');
    const [id] = await publish(company, 1);
    const [{ seq }] = await sql(api, 'SELECT id AS seq FROM webhook_events WHERE event_id = $1', [id]);
    await expect(
      client.query('INSERT INTO webhook_events_undispatched (id) VALUES ($1)', [seq]),
    ).rejects.toThrow(/null value in column "event_id"/);
    await dispatch();
  });

  it("admits the oldest events up to the endpoint's room, as one job's rows, and leaves the rest waiting", async () => {
    const company = await createCompany(api, 'Roomy');
    const endpoint = await endpointOf(company, 'max_in_flight = 2');
    const events = await publish(company, 5);

    const fanned = await dispatch();

    expect(fanned.claimed).toBe(5);
    expect(fanned.jobs.map((job) => job.event_id)).toEqual(events.slice(0, 2));
    // The job data carries the envelope as stored and the endpoint's cap.
    expect(JSON.parse(fanned.jobs[0].body!)).toEqual({ type: 'warehouse.created', data: { id: events[0] } });
    expect(fanned.jobs.map((job) => job.cap)).toEqual([2, 2]);
    expect(fanned.waiting).toEqual([endpoint]);
    expect(await admitted(endpoint)).toEqual({
      [events[0]]: true,
      [events[1]]: true,
      [events[2]]: false,
      [events[3]]: false,
      [events[4]]: false,
    });
    // One admission number (one batch job) for the two admitted, none for those left waiting.
    const number = fanned.jobs[0].admission;
    expect(fanned.jobs[1].admission).toBe(number);
    const numbers: { event_id: string; admission: string | null }[] = await sql(
      api,
      'SELECT event_id, admission::text FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1',
      [endpoint],
    );
    expect(Object.fromEntries(numbers.map((row) => [row.event_id, row.admission]))).toEqual({
      [events[0]]: number,
      [events[1]]: number,
      [events[2]]: null,
      [events[3]]: null,
      [events[4]]: null,
    });
  });

  it('admits none of a new event while older deliveries of the endpoint wait: they go first', async () => {
    const company = await createCompany(api, 'Queued');
    const endpoint = await endpointOf(company, 'max_in_flight = 1');
    const [first, second] = await publish(company, 2);
    await dispatch();
    // Room again, but the second event still waits.
    await sql(api, `UPDATE webhook_endpoints SET max_in_flight = 10 WHERE uuid = $1`, [endpoint]);
    const [third] = await publish(company, 1);

    const fanned = await dispatch();

    expect(fanned.jobs).toEqual([]);
    expect(fanned.waiting).toEqual([endpoint]);
    expect(await admitted(endpoint)).toEqual({ [first]: true, [second]: false, [third]: false });
  });

  it('admits nothing for an endpoint that orders by record: the admitter decides', async () => {
    const company = await createCompany(api, 'Ordered');
    const endpoint = await endpointOf(company, "ordering = 'entity'");
    const [event] = await publish(company, 1);

    const fanned = await dispatch();

    expect(fanned.jobs).toEqual([]);
    expect(fanned.waiting).toEqual([endpoint]);
    expect(await admitted(endpoint)).toEqual({ [event]: false });
  });

  /** How many times one batch looked for a waiting delivery of an endpoint (`firstWaitingAt`, alias w). */
  const waitingLookups = () =>
    executedLoops(
      client,
      FAN_OUT,
      // PostgreSQL renames a repeated alias (w_1).
      (node) => node['Relation Name'] === 'webhook_deliveries' && /^w(_\d+)?$/.test(node.Alias ?? ''),
    );

  it("works out an endpoint's room once per batch, not once per event", async () => {
    const company = await createCompany(api, 'Batched');
    await endpointOf(company, 'max_in_flight = 3');
    await publish(company, 6);

    // Six events to one endpoint: one look-up (inlined into the insert's join, it ran for each event).
    expect(await waitingLookups()).toBe(1);
  });
});
