import { DeliveryRow, DeliveryStore, deliveryJobs } from '@wharf/webhooks';
import { ADMIT } from '@wharf/webhooks/worker';
import { DataSource } from 'typeorm';
import { createCompany } from './support/accounts';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql } from './support/webhooks';

const CAP = 3;

/**
 * What recording a finished batch admits after it: the endpoint's successors, up to its cap, or eight caps'
 * worth (each cap's a batch job of its own) while its answers come fast, so the next jobs are already queued
 * when the recording statement that admits more runs late.
 */
describe('attempt records: the refill of a finished batch', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  /** An endpoint (rate-limited if `ratePerSecond`) with CAP deliveries admitted and 40 more due and waiting. */
  async function busyEndpoint(tag: string, ratePerSecond: number | null) {
    const company = await createCompany(api);
    const endpoint = (await createEndpoint(api, company, 'http://127.0.0.1:9/hook')).endpoint as {
      uuid: string;
      url: string;
    };
    await sql(
      api,
      'UPDATE webhook_endpoints SET max_in_flight = $1, rate_limit_per_second = $2 WHERE uuid = $3',
      [CAP, ratePerSecond, endpoint.uuid],
    );
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload)
       SELECT 'evt_${tag}_' || i, $1, 'warehouse.created', '{}' FROM generate_series(1, 43) i`,
      [company.uuid],
    );
    const deliveries: { uuid: string; event_id: string }[] = await sql(
      api,
      `INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid, next_attempt_at, status, admitted_at, admission)
       SELECT 'evt_${tag}_' || i, $1, $2, now() - interval '1 minute' + i * interval '1 ms',
         CASE WHEN i <= ${CAP} THEN 'admitted' ELSE 'waiting' END, CASE WHEN i <= ${CAP} THEN now() END,
         CASE WHEN i <= ${CAP} THEN 1 END
       FROM generate_series(1, 43) i RETURNING uuid, event_id`,
      [endpoint.uuid, company.uuid],
    );
    const admitted = deliveries.filter((d) => Number(d.event_id.split('_').pop()) <= CAP);
    return { company, endpoint, admitted };
  }

  /** Records an attempt with `outcome`, answered in `durationMs`, for each of `deliveries`. */
  function record(
    company: { uuid: string },
    endpoint: { uuid: string; url: string },
    deliveries: { uuid: string; event_id: string }[],
    durationMs: number,
    outcome: 'successful' | 'retrying' = 'successful',
  ) {
    return api.app.get(DeliveryStore).record(
      deliveries.map((d) => ({
        delivery: {
          uuid: d.uuid,
          company_uuid: company.uuid,
          endpoint_uuid: endpoint.uuid,
          event_id: d.event_id,
          event: 'warehouse.created',
        },
        attempt: 1,
        result: {
          url: endpoint.url,
          request_headers: {},
          request_body: '{}',
          response_status: outcome === 'successful' ? 200 : 503,
          response_headers: {},
          response_body: 'ok',
          duration_ms: durationMs,
          error: null,
          status: outcome === 'successful' ? 'successful' : 'failed',
          sent_at: new Date(),
          permanent: false,
        },
        outcome,
        nextAttemptInMs: outcome === 'successful' ? 0 : 60_000,
      })),
      api.config.webhooks.autoDisableAfterDays,
    );
  }

  /** Records a successful attempt, answered in `durationMs`, for each of the endpoint's admitted deliveries. */
  async function finish(tag: string, durationMs: number, ratePerSecond: number | null = null) {
    const { company, endpoint, admitted } = await busyEndpoint(tag, ratePerSecond);
    const admission = await record(company, endpoint, admitted, durationMs);
    const [state] = await sql(
      api,
      `SELECT count(*) FILTER (WHERE admitted_at IS NOT NULL)::int AS admitted,
         count(*) FILTER (WHERE admitted_at IS NULL)::int AS waiting
       FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1`,
      [endpoint.uuid],
    );
    return { admission, state };
  }

  it('refills a fast endpoint to eight caps, one batch job per cap, oldest first', async () => {
    const { admission, state } = await finish('fast', 5);
    expect(admission.admitted).toHaveLength(8 * CAP);
    expect(state).toEqual({ admitted: 8 * CAP, waiting: 40 - 8 * CAP });
    expect(new Set(admission.admitted.map((row) => String(row.admission))).size).toBe(8);
    const order = admission.admitted
      .map((row) => Number(row.event_id.split('_').pop()))
      .sort((a, b) => a - b);
    expect(order).toEqual(Array.from({ length: 8 * CAP }, (_, i) => CAP + 1 + i));
  });

  it('refills an endpoint whose answers were slow only to its cap', async () => {
    const { admission, state } = await finish('slow', 500);
    expect(admission.admitted).toHaveLength(CAP);
    expect(state).toEqual({ admitted: CAP, waiting: 40 - CAP });
  });

  it('refills a fast endpoint under a rate limit only to its cap (each send waits for its own slot)', async () => {
    const { admission, state } = await finish('limited', 5, 100);
    expect(admission.admitted).toHaveLength(CAP);
    expect(state).toEqual({ admitted: CAP, waiting: 40 - CAP });
  });

  /**
   * Two workers' admissions for one endpoint can start in the same microsecond; one transaction's two
   * statements share their now() for certain, so they stand in for them. Each names its own batch job: a
   * job id they shared would be added once, and the second statement's deliveries would sit unsent until
   * the sweeper's grace ran out.
   */
  it('names a batch job per admitting statement, even when two share their clock', async () => {
    const { endpoint } = await busyEndpoint('instant', null);
    const runner = api.app.get(DataSource).createQueryRunner();
    const admitted: DeliveryRow[][] = [];
    try {
      await runner.startTransaction();
      for (const cap of [2 * CAP, 3 * CAP]) {
        await runner.query('UPDATE webhook_endpoints SET max_in_flight = $2 WHERE uuid = $1', [
          endpoint.uuid,
          cap,
        ]);
        admitted.push(await runner.query(ADMIT, [[endpoint.uuid]]));
      }
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(admitted.map((rows) => rows.length)).toEqual([CAP, CAP]);
    const jobs = admitted.map((rows) => deliveryJobs(rows, 5));
    expect(jobs.map((list) => list.length)).toEqual([1, 1]);
    expect(jobs[0][0].opts.jobId).not.toEqual(jobs[1][0].opts.jobId);
    // Admitted at the same instant; the sweeper names their jobs from the rows alone.
    const stored: { at: string[]; admissions: string[] }[] = await sql(
      api,
      `SELECT array_agg(DISTINCT admitted_at::text) AS at, array_agg(DISTINCT admission::text) AS admissions
       FROM webhook_deliveries WHERE uuid = ANY($1::uuid[])`,
      [admitted.flat().map((row) => row.uuid)],
    );
    expect(stored[0].at).toHaveLength(1);
    expect(stored[0].admissions.sort()).toEqual(admitted.map((rows) => String(rows[0].admission)).sort());
  });

  it('forgets a number when its delivery goes back to waiting', async () => {
    const { company, endpoint, admitted } = await busyEndpoint('retried', null);
    // Retried: out of the queue, so its successors (numbered) are admitted, and its own number is gone.
    const successors = await record(company, endpoint, admitted, 5, 'retrying');
    expect(successors.admitted).toHaveLength(CAP);
    const [numbered] = successors.admitted;
    await record(company, endpoint, [numbered], 5, 'retrying');
    const [state] = await sql(
      api,
      'SELECT admitted_at, admission, attempts FROM webhook_deliveries WHERE uuid = $1',
      [numbered.uuid],
    );
    expect(state).toEqual({ admitted_at: null, admission: null, attempts: 1 });
  });
});
