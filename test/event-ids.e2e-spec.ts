import { EVENT_ID_SQL, eventIdAt, eventIdTime, newEventId } from '@wharf/webhooks';
import { Client } from 'pg';
import { BASE_DATABASE_URL } from './support/test-app';

/**
 * An event id is defined once (outbox/event-id.ts): made in TypeScript for a write's events and in
 * PostgreSQL for the events the record of attempts makes itself. Both must be the same kind of id, so that
 * they sort together by creation time and land in the outbox partition of that time.
 */
describe('event ids, made in TypeScript and in PostgreSQL', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: BASE_DATABASE_URL });
    await client.connect();
  });
  afterAll(() => client.end());

  it('have one shape, begin with the time they were made at, and differ', async () => {
    const { rows } = await client.query<{ id: string; ms: string }>(
      `SELECT ${EVENT_ID_SQL} AS id, (extract(epoch FROM now()) * 1000)::bigint::text AS ms
       FROM generate_series(1, 50)`,
    );
    const made = newEventId();
    const random = (id: string) => id.slice(eventIdAt(0).length);
    for (const { id, ms } of rows) {
      expect(id).toHaveLength(made.length);
      expect(id.startsWith(eventIdAt(Number(ms)))).toBe(true);
      expect(eventIdTime(id)).toBe(Number(ms));
      expect(random(id)).toMatch(/^[0-9a-f]+$/);
      expect(random(made)).toMatch(/^[0-9a-f]+$/);
    }
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
    expect(eventIdTime(made)).toBeGreaterThanOrEqual(Number(rows[0].ms) - 60_000);
  });

  it('sort by the time they were made at, whichever side made them', async () => {
    const before = newEventId();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [{ id }] = (await client.query<{ id: string }>(`SELECT ${EVENT_ID_SQL} AS id`)).rows;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const after = newEventId();
    expect([after, id, before].sort()).toEqual([before, id, after]);
  });
});
