import { ATTEMPT_BATCH_COLUMNS, attemptBatchJson, attemptBatchRows } from './attempt-batch';

describe('the wire format of a batch of attempt records', () => {
  const row = {
    company_uuid: '6f1c1f4e-0000-4000-8000-000000000001',
    webhook_delivery_uuid: '6f1c1f4e-0000-4000-8000-000000000002',
    attempt: 2,
    request_headers: { 'webhook-id': 'msg_1' },
    error: null,
  };

  it('sends each column under its one-letter key, leaving out what a record does not give', () => {
    const [wire] = JSON.parse(attemptBatchJson([row])) as Record<string, unknown>[];
    expect(wire).toEqual({
      a: row.company_uuid,
      c: row.webhook_delivery_uuid,
      f: 2,
      h: { 'webhook-id': 'msg_1' },
      m: null,
    });
  });

  it('reads every key back under its column name and type', () => {
    const sql = attemptBatchRows('$1');
    const columns = Object.entries(ATTEMPT_BATCH_COLUMNS);
    columns.forEach(([column, type], i) => {
      const key = String.fromCharCode(97 + i);
      expect(sql).toContain(`x.${key} AS ${column}`);
      expect(sql).toContain(`${key} ${type}`);
    });
    expect(columns).toHaveLength(18);
  });
});
