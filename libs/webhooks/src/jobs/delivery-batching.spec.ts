import { DeliveryRow } from '../store/job-rows.sql';
import { deliveryJobs } from './delivery-batching';
import { DELIVER_BATCH, DeliveryBatchJobData } from './delivery-job';

const row = (uuid: string, fields: Partial<DeliveryRow> = {}): DeliveryRow => ({
  uuid,
  webhook_endpoint_uuid: 'ep1',
  company_uuid: 'co1',
  attempts: 0,
  event_id: `evt_${uuid}`,
  name: 'warehouse.created',
  body: `{"id":"evt_${uuid}"}`,
  version: '1000',
  admission: '1700000000000001',
  limited: false,
  cap: 10,
  trace_context: null,
  ...fields,
});

describe('delivery jobs', () => {
  it('puts first attempts admitted together to one endpoint in one job named after the admission', () => {
    const jobs = deliveryJobs([row('a'), row('b'), row('c', { version: '2000' })], 5);
    expect(jobs).toHaveLength(1);
    expect(jobs[0].name).toBe(DELIVER_BATCH);
    expect(jobs[0].opts.jobId).toBe('ep1.1700000000000001');
    const data = jobs[0].data as DeliveryBatchJobData;
    expect(data.deliveries.map((d) => d.delivery)).toEqual(['a', 'b', 'c']);
    // The newest endpoint version any of them saw, so no delivery is sent with an older endpoint.
    expect(data.endpointVersion).toBe(2000);
    expect(data.cap).toBe(10);
  });

  it('keeps retries, sends under a rate limit and lone deliveries one per job, under their own ids', () => {
    const jobs = deliveryJobs(
      [
        row('retry', { attempts: 2 }),
        row('limited', { limited: true }),
        row('other', { webhook_endpoint_uuid: 'ep2' }),
        row('x'),
        row('y'),
        row('later', { admission: '1700000000000002' }),
      ],
      5,
    );
    const ids = jobs.map((job) => [job.name, job.opts.jobId]);
    expect(ids).toEqual([
      ['deliver', 'retry.2'],
      ['deliver', 'limited.0'],
      ['deliver', 'other.0'],
      [DELIVER_BATCH, 'ep1.1700000000000001'],
      ['deliver', 'later.0'],
    ]);
  });

  it('carries the trace context of a traced event into its job, and no trace key for an untraced one', () => {
    const traced = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const [single] = deliveryJobs([row('retry', { attempts: 1, trace_context: traced })], 5);
    expect(single.data).toMatchObject({ delivery: 'retry', trace: traced });
    const [batch] = deliveryJobs([row('a', { trace_context: traced }), row('b')], 5);
    const [a, b] = (batch.data as DeliveryBatchJobData).deliveries;
    expect(a.trace).toBe(traced);
    expect(b).not.toHaveProperty('trace');
  });
});
