import { connectionOptions } from '@wharf/core';
import {
  ADMIT,
  attemptBatchJson,
  FAN_OUT,
  DUE_ENDPOINTS,
  RECORD_ATTEMPTS,
  WORKER_DATABASE_SETTINGS,
} from '@wharf/webhooks/worker';
import { Client } from 'pg';
import { createCompany } from './support/accounts';
import { executedLoops, PlanNode, planNodes } from './support/plans';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql } from './support/webhooks';

/** The generic plan a worker connection makes for `text` (its settings force one). */
async function genericPlan(client: Client, name: string, text: string): Promise<PlanNode> {
  const params = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  await client.query(`PREPARE ${name} AS ${text}`);
  const args = params ? `(${Array(params).fill('NULL').join(', ')})` : '';
  const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE ${name}${args}`);
  await client.query(`DEALLOCATE ${name}`);
  return rows[0]['QUERY PLAN'][0].Plan as PlanNode;
}

/**
 * The common table expressions read again for every row of a nested loop's outer side (an inner side that
 * scans one, not through a Hash, Materialize or Memoize that keeps what it read once, nor in an InitPlan,
 * run once per statement), unless that side is one row by construction (a Result, or an aggregate without
 * groups).
 */
function rescannedCtes(plan: PlanNode): string[] {
  const scanned = (node: PlanNode): string[] =>
    node['Node Type'] === 'CTE Scan'
      ? [node['CTE Name']!]
      : ['Hash', 'Materialize', 'Memoize'].includes(node['Node Type'])
        ? []
        : (node.Plans ?? []).filter((child) => child['Parent Relationship'] !== 'InitPlan').flatMap(scanned);
  const side = (node: PlanNode, relationship: string) =>
    (node.Plans ?? []).filter((child) => child['Parent Relationship'] === relationship);
  const oneRow = (node: PlanNode) =>
    node['Node Type'] === 'Result' || (node['Node Type'] === 'Aggregate' && node.Strategy === 'Plain');
  return planNodes(plan).flatMap((node) =>
    node['Node Type'] === 'Nested Loop' && !side(node, 'Outer').every(oneRow)
      ? side(node, 'Inner').flatMap(scanned)
      : [],
  );
}

/** A merge join of two common table expressions (each read once, sorted): it reads no table. */
const joinsCtes = (node: PlanNode) =>
  node['Node Type'] === 'Merge Join' &&
  (node.Plans ?? []).every((side) => {
    const input = side['Node Type'] === 'Sort' ? side.Plans?.[0] : side;
    return input?.['Node Type'] === 'CTE Scan';
  });

/**
 * The nodes of the generic plan a worker connection makes for `text` that read a whole table or index: a
 * sequential scan, a scan of an index that is not partial with no condition on it, or a merge join (which
 * such a scan feeds) unless it joins two common table expressions. Partial indexes are bounded by design
 * (the waiting and admitted rows), as is the queue of undispatched events.
 */
async function wholeReads(
  client: Client,
  partial: Set<string>,
  name: string,
  text: string,
): Promise<string[]> {
  return planNodes(await genericPlan(client, name, text))
    .filter(
      (node) =>
        node['Node Type'] === 'Seq Scan' ||
        (node['Node Type'] === 'Merge Join' && !joinsCtes(node)) ||
        (/^Index (Only )?Scan$/.test(node['Node Type']) &&
          !node['Index Cond'] &&
          !partial.has(node['Index Name']!)),
    )
    .map((node) => `${node['Node Type']} ${node['Relation Name'] ?? ''}`.trim());
}

/**
 * The worker's statements keep index plans however small or unanalysed its tables were when a connection
 * planned them: a generic plan is kept for the connection's life, and one that scanned webhook_deliveries
 * while it held a few hundred rows went on scanning it as it grew, on every delivery.
 */
describe('worker statements: index plans whatever the statistics', () => {
  let api: TestApi;
  let client: Client;
  /** The partial indexes (each bounded by its predicate): a scan of one with no condition is fine. */
  let partial: Set<string>;

  beforeAll(async () => {
    api = await startApi();
    const company = await createCompany(api);
    const { endpoint } = await createEndpoint(api, company, 'http://127.0.0.1:9/hook');
    // A few hundred deliveries, never analysed, none due (so nothing would send them).
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload)
       SELECT 'evt_plan_' || i, $1, 'warehouse.created', '{}' FROM generate_series(1, 500) i`,
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
    const indexes = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indpred IS NOT NULL`,
    );
    // The queue of undispatched events holds only those, as a partial index on the outbox did before it.
    partial = new Set([...indexes.rows.map((row) => row.name), 'webhook_events_undispatched_pkey']);
  });

  afterAll(async () => {
    await client?.end();
    await api?.close();
  });

  const recordRescans = async () =>
    rescannedCtes(await genericPlan(client, 'record_attempts', RECORD_ATTEMPTS));

  const statements = [
    ['record_attempts', RECORD_ATTEMPTS],
    ['admit', ADMIT],
    ['due_endpoints', DUE_ENDPOINTS],
    ['fan_out', FAN_OUT],
  ];

  it.each(statements)('%s reads no whole table or index (few rows, never analysed)', async (name, text) => {
    expect(await wholeReads(client, partial, name, text)).toEqual([]);
  });

  /**
   * The batch of attempt records (up to 500) is read once per use, never once per row of another part:
   * estimating one successful record, the generic plan deleted the delivered deliveries in a nested loop
   * that read the whole batch again for each: quadratic in the batch's size.
   */
  it('record_attempts reads its batch of records once per use (few rows, never analysed)', async () => {
    expect(await recordRescans()).not.toContain('batch');
  });

  /**
   * A backlog's statistics: ten thousand due deliveries waiting for one endpoint (the api runs no worker to
   * send them). Planned from them, the successors' admission (whose count a generic plan cannot know, so it
   * guessed a tenth of the backlog) merge-joined with a walk of the whole primary key, in every batch, where
   * looking the successors up reads only them.
   */
  describe('with a backlog, analysed', () => {
    beforeAll(async () => {
      const [{ company_uuid: company, webhook_endpoint_uuid: endpoint }] = (await sql(
        api,
        `SELECT company_uuid, webhook_endpoint_uuid FROM webhook_deliveries LIMIT 1`,
      )) as { company_uuid: string; webhook_endpoint_uuid: string }[];
      await sql(
        api,
        `INSERT INTO webhook_events (event_id, company_uuid, name, payload)
         SELECT 'evt_backlog_' || i, $1, 'warehouse.created', '{}' FROM generate_series(1, 10000) i`,
        [company],
      );
      await sql(
        api,
        `INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid, next_attempt_at)
         SELECT 'evt_backlog_' || i, $1, $2, now() - interval '1 minute' FROM generate_series(1, 10000) i`,
        [endpoint, company],
      );
      // Every table the statements read, the endpoints too: analysed with the one endpoint there is, a join
      // to them planned as a walk of the whole endpoint index (per admitted delivery in the job rows, per
      // event in the relay), kept for the connection's life as endpoints grew to thousands.
      await sql(
        api,
        'ANALYZE webhook_events, webhook_deliveries, webhook_endpoints, webhook_events_undispatched',
      );
    });

    it.each(statements)('%s reads no whole table or index', async (name, text) => {
      expect(await wholeReads(client, partial, name, text)).toEqual([]);
    });

    it('record_attempts reads its batch of records once per use', async () => {
      expect(await recordRescans()).not.toContain('batch');
    });

    /**
     * A bitmap scan never marks an index entry dead: counting an endpoint's admitted deliveries that way
     * (as these statistics planned it) read the entry of every delivery finished since the last vacuum.
     */
    it.each(statements)('%s reads no index through a bitmap', async (name, text) => {
      const bitmaps = planNodes(await genericPlan(client, name, text)).filter((node) =>
        node['Node Type'].startsWith('Bitmap'),
      );
      expect(
        bitmaps.map((node) => `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`),
      ).toEqual([]);
    });

    /**
     * How many times `text` (prepared, run with `args` in a transaction rolled back after `before`) read
     * the queue of undispatched events: the outbox barrier. It walks that queue's index past every entry the
     * relay deleted since the last vacuum (a cost that grows with every backlog drained), so only
     * an ordered endpoint's delivery may ask for it.
     */
    async function barrierReads(name: string, text: string, args: unknown[], before: string[] = []) {
      // EXECUTE takes its arguments as SQL, not as bound parameters.
      const literal = (arg: unknown) =>
        typeof arg === 'number'
          ? String(arg)
          : client.escapeLiteral(Array.isArray(arg) ? `{${arg.join(',')}}` : String(arg));
      return executedLoops(
        client,
        `EXECUTE ${name}(${args.map(literal).join(', ')})`,
        // A read: the record's insert of operational events into the queue is no walk of its index.
        (node) =>
          node['Relation Name'] === 'webhook_events_undispatched' && node['Node Type'] !== 'ModifyTable',
        [...before, `PREPARE ${name} AS ${text}`],
      );
    }

    it('admit and record_attempts read the outbox barrier only for an ordered delivery', async () => {
      const [{ uuid: delivery, endpoint, company, event }] = (await sql(
        api,
        `SELECT uuid, webhook_endpoint_uuid AS endpoint, company_uuid AS company, event_id AS event
         FROM webhook_deliveries WHERE event_id LIKE 'evt_backlog_%' LIMIT 1`,
      )) as { uuid: string; endpoint: string; company: string; event: string }[];
      const record = [
        {
          company_uuid: company,
          webhook_endpoint_uuid: endpoint,
          webhook_delivery_uuid: delivery,
          event_id: event,
          event: 'warehouse.created',
          attempt: 1,
          url: 'http://127.0.0.1:9/hook',
          request_headers: {},
          response_status: 200,
          duration_ms: 1,
          status: 'successful',
          sent_at: new Date().toISOString(),
          outcome: 'successful',
          next_attempt_in_ms: 0,
        },
      ];
      const recordArgs = [attemptBatchJson(record), [endpoint], ['healthy'], 30, [delivery], [0]];
      const admitted = `UPDATE webhook_deliveries SET status = 'admitted', admitted_at = now() WHERE uuid = '${delivery}'`;
      // Ordered: every waiting delivery names a record, so each needs the barrier before it may go.
      const ordered = [
        `UPDATE webhook_endpoints SET ordering = 'entity' WHERE uuid = '${endpoint}'`,
        `UPDATE webhook_deliveries SET entity_key = event_id, event_seq = 1 WHERE webhook_endpoint_uuid = '${endpoint}'`,
      ];

      expect(await barrierReads('admit_unordered', ADMIT, [[endpoint]])).toBe(0);
      expect(await barrierReads('record_unordered', RECORD_ATTEMPTS, recordArgs, [admitted])).toBe(0);
      expect(await barrierReads('admit_ordered', ADMIT, [[endpoint]], ordered)).toBe(1);
      expect(await barrierReads('record_ordered', RECORD_ATTEMPTS, recordArgs, [admitted, ...ordered])).toBe(
        1,
      );
    });
  });
});
