import { AttemptOutcome, DeliveryStore } from '@wharf/webhooks';
import { createCompany } from './support/accounts';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, sql } from './support/webhooks';

/**
 * The record statement's parts (store/record.sql.ts), each through its effect: the request log, the
 * deliveries' new states, and the endpoints' health. The successors part has its own suite
 * (attempt-refill.e2e-spec.ts).
 */
describe('the record of a batch of attempts, part by part', () => {
  let api: TestApi;
  let seq = 0;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  /** An endpoint with `n` admitted deliveries of stored events. */
  async function admitted(n: number) {
    const company = await createCompany(api);
    const { endpoint } = (await createEndpoint(api, company, 'http://127.0.0.1:9/hook')) as unknown as {
      endpoint: { uuid: string; url: string };
    };
    const tag = `parts_${++seq}`;
    await sql(
      api,
      `INSERT INTO webhook_events (event_id, company_uuid, name, payload)
       SELECT 'evt_${tag}_' || i, $1, 'warehouse.created', json_build_object('id', 'evt_${tag}_' || i)
       FROM generate_series(1, ${n}) i`,
      [company.uuid],
    );
    const deliveries: { uuid: string; event_id: string }[] = await sql(
      api,
      `INSERT INTO webhook_deliveries (event_id, webhook_endpoint_uuid, company_uuid, status, admitted_at, admission)
       SELECT 'evt_${tag}_' || i, $1, $2, 'admitted', now(), 1 FROM generate_series(1, ${n}) i
       RETURNING uuid, event_id`,
      [endpoint.uuid, company.uuid],
    );
    return { company, endpoint, deliveries };
  }

  type Answer = { status: number | null; error?: string; outcome: AttemptOutcome };
  function record(
    { company, endpoint, deliveries }: Awaited<ReturnType<typeof admitted>>,
    answers: Answer[],
  ) {
    return api.app.get(DeliveryStore).record(
      answers.map((answer, i) => ({
        delivery: {
          uuid: deliveries[i].uuid,
          company_uuid: company.uuid,
          endpoint_uuid: endpoint.uuid,
          event_id: deliveries[i].event_id,
          event: 'warehouse.created',
        },
        attempt: 1,
        result: {
          url: endpoint.url,
          request_headers: { 'webhook-id': deliveries[i].event_id },
          request_body: '',
          response_status: answer.status,
          response_headers: answer.status ? { 'x-answer': String(answer.status) } : null,
          response_body: answer.status ? `answer ${answer.status}` : null,
          duration_ms: 7,
          error: answer.error ?? null,
          status: answer.outcome === 'successful' ? 'successful' : 'failed',
          sent_at: new Date(),
          permanent: answer.status === 410,
        },
        outcome: answer.outcome,
        nextAttemptInMs: answer.outcome === 'retrying' ? 60_000 : 0,
      })),
      api.config.webhooks.autoDisableAfterDays,
    );
  }

  it('logs each attempt with the body of its stored event', async () => {
    const batch = await admitted(2);
    await record(batch, [
      { status: 200, outcome: 'successful' },
      { status: 500, outcome: 'retrying' },
    ]);
    const logs = await sql(
      api,
      `SELECT event_id, attempt, request_body::json->>'id' AS body_of, response_status, response_body, status, duration_ms
       FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1 ORDER BY event_id`,
      [batch.endpoint.uuid],
    );
    expect(logs).toEqual(
      batch.deliveries.map((d, i) => ({
        event_id: d.event_id,
        attempt: 1,
        body_of: d.event_id,
        response_status: i === 0 ? 200 : 500,
        response_body: i === 0 ? 'answer 200' : 'answer 500',
        status: i === 0 ? 'successful' : 'failed',
        duration_ms: 7,
      })),
    );
  });

  it('moves each delivery by its outcome: delivered goes, retrying waits for its time, failed stays failed', async () => {
    const batch = await admitted(3);
    await record(batch, [
      { status: 200, outcome: 'successful' },
      { status: 500, outcome: 'retrying' },
      { status: 500, outcome: 'failed' },
    ]);
    const rows = await sql(
      api,
      `SELECT event_id, status, attempts, admitted_at, admission, next_attempt_at > now() + interval '50 seconds' AS later
       FROM webhook_deliveries WHERE webhook_endpoint_uuid = $1 ORDER BY event_id`,
      [batch.endpoint.uuid],
    );
    expect(rows).toEqual([
      {
        event_id: batch.deliveries[1].event_id,
        status: 'retrying',
        attempts: 1,
        admitted_at: null,
        admission: null,
        later: true,
      },
      {
        event_id: batch.deliveries[2].event_id,
        status: 'failed',
        attempts: 1,
        admitted_at: null,
        admission: null,
        later: false,
      },
    ]);
  });

  it('records a stale duplicate (a delivery no longer admitted) in the log only', async () => {
    const batch = await admitted(1);
    await record(batch, [{ status: 500, outcome: 'retrying' }]);
    await record(batch, [{ status: 200, outcome: 'successful' }]);
    const [delivery] = await sql(api, 'SELECT status, attempts FROM webhook_deliveries WHERE uuid = $1', [
      batch.deliveries[0].uuid,
    ]);
    expect(delivery).toEqual({ status: 'retrying', attempts: 1 });
    const [{ n }] = await sql(
      api,
      'SELECT count(*)::int AS n FROM webhook_request_logs WHERE webhook_endpoint_uuid = $1',
      [batch.endpoint.uuid],
    );
    expect(n).toBe(2);
  });

  it('applies health: timeouts throttle, a success clears it, a 410 disables', async () => {
    const batch = await admitted(5);
    const health = () =>
      sql(
        api,
        'SELECT status, throttled, consecutive_timeouts, disabled_reason FROM webhook_endpoints WHERE uuid = $1',
        [batch.endpoint.uuid],
      ).then((rows) => rows[0]);
    const timeout: Answer = { status: null, error: 'timeout', outcome: 'retrying' };
    await record({ ...batch, deliveries: batch.deliveries.slice(0, 3) }, [timeout, timeout, timeout]);
    expect(await health()).toEqual({
      status: 'enabled',
      throttled: true,
      consecutive_timeouts: 3,
      disabled_reason: null,
    });
    await record({ ...batch, deliveries: batch.deliveries.slice(3, 4) }, [
      { status: 200, outcome: 'successful' },
    ]);
    expect(await health()).toEqual({
      status: 'enabled',
      throttled: false,
      consecutive_timeouts: 0,
      disabled_reason: null,
    });
    await record({ ...batch, deliveries: batch.deliveries.slice(4) }, [{ status: 410, outcome: 'failed' }]);
    expect(await health()).toMatchObject({
      status: 'disabled',
      disabled_reason: 'The endpoint answered 410 Gone.',
    });
  });
});
