import { AppConfig, HealthService, OutageMonitor } from '@wharf/core';
import { AttemptRecord } from '../../store/attempt-record';
import { DeliveryStore } from '../../store/delivery.store';
import { Admission, DeliveryRow } from '../../store/job-rows.sql';
import { DeliveryAdmitter } from '../admission/delivery.admitter';
import { AnswerGroup, AttemptWriter } from './attempt-writer';

// The store's record (one statement) stands in for PostgreSQL: these specs are about batching and retries.
const recorded = jest.fn<Promise<Admission>, [AttemptRecord[], number]>();
const store = { record: recorded } as unknown as DeliveryStore;

const record = (uuid: string) => ({ delivery: { uuid } }) as AttemptRecord;
/** One send of the batch job `group` answered, and its record handed to the writer. */
const answer = (w: AttemptWriter, group: AnswerGroup, uuid: string) => {
  w.answered(group);
  void w.record(record(uuid), group);
};
const pgError = (code: string) => Object.assign(new Error(code), { code });
const none: Admission = { admitted: [], admitMore: [] };
// The admitter's own `admitted` (what the writer calls), over recorded enqueue and admit.
const admitter = {
  enqueue: jest.fn(async () => undefined),
  admit: jest.fn(),
  admitted: DeliveryAdmitter.prototype.admitted,
};
const health = { probe: async () => 'down' } as unknown as HealthService;
let monitor: OutageMonitor;
const writer = () =>
  new AttemptWriter(store, { webhooks: {} } as AppConfig, admitter as unknown as DeliveryAdmitter, monitor);
const uuids = () => recorded.mock.calls.map(([records]) => records.map((r) => r.delivery.uuid));

describe('AttemptWriter', () => {
  beforeEach(() => {
    recorded.mockReset();
    admitter.enqueue.mockClear();
    admitter.admit.mockClear();
    monitor = new OutageMonitor(health);
  });
  afterEach(() => monitor.onApplicationShutdown());

  it('holds a batch through a database outage and writes it once PostgreSQL answers again', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999'), { code: 'ECONNREFUSED' });
    recorded.mockRejectedValueOnce(refused).mockRejectedValueOnce(refused).mockResolvedValue(none);
    const w = writer();
    await Promise.all([w.record(record('a')), w.record(record('b'))]);
    expect(uuids()).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(monitor.isDown('database')).toBe(true);
  });

  it('gives the records up when abandoned during an outage (their jobs go back to the queue)', async () => {
    recorded.mockRejectedValue(Object.assign(new Error('Connection terminated unexpectedly')));
    const w = writer();
    const pending = w.record(record('a'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    w.abandon();
    await expect(pending).rejects.toThrow(/abandoned/);
  });

  it('commits records that arrive together as one batch', async () => {
    recorded.mockResolvedValue(none);
    const w = writer();
    await Promise.all([w.record(record('a')), w.record(record('b')), w.record(record('c'))]);
    expect(uuids()).toEqual([['a', 'b', 'c']]);
  });

  describe('with the answers of one batch job', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('commits them as soon as the last is in, without lingering', async () => {
      recorded.mockResolvedValue(none);
      const w = writer();
      const answers = new AnswerGroup(2);
      answer(w, answers, 'a');
      await jest.advanceTimersByTimeAsync(1);
      expect(recorded).not.toHaveBeenCalled();
      answer(w, answers, 'b');
      await jest.advanceTimersByTimeAsync(0);
      expect(uuids()).toEqual([['a', 'b']]);
    });

    it('waits no longer than the linger for answers still out', async () => {
      recorded.mockResolvedValue(none);
      const w = writer();
      const answers = new AnswerGroup(3);
      answer(w, answers, 'a');
      answer(w, answers, 'b');
      await jest.advanceTimersByTimeAsync(19);
      expect(recorded).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(uuids()).toEqual([['a', 'b']]);
      answer(w, answers, 'c');
      await jest.advanceTimersByTimeAsync(0);
      expect(uuids()).toEqual([['a', 'b'], ['c']]);
    });

    it("holds back only its own records: another job's, all answered, are committed at once", async () => {
      recorded.mockResolvedValue(none);
      const w = writer();
      const slow = new AnswerGroup(2);
      answer(w, slow, 'slow-1');
      const fast = new AnswerGroup(2);
      for (const uuid of ['fast-1', 'fast-2']) {
        await jest.advanceTimersByTimeAsync(1);
        answer(w, fast, uuid);
      }
      await jest.advanceTimersByTimeAsync(0);
      expect(uuids()).toEqual([['fast-1', 'fast-2']]);
      await jest.advanceTimersByTimeAsync(18);
      expect(uuids()).toEqual([['fast-1', 'fast-2'], ['slow-1']]);
    });

    it('waits for a job answered slowly, one answer every few milliseconds, and commits it whole', async () => {
      recorded.mockResolvedValue(none);
      const w = writer();
      const answers = new AnswerGroup(5);
      for (const uuid of ['a', 'b', 'c', 'd', 'e']) {
        answer(w, answers, uuid);
        await jest.advanceTimersByTimeAsync(4);
      }
      expect(uuids()).toEqual([['a', 'b', 'c', 'd', 'e']]);
    });

    it('stops waiting for a send that ended without a record', async () => {
      recorded.mockResolvedValue(none);
      const w = writer();
      const answers = new AnswerGroup(2);
      answer(w, answers, 'a');
      w.answered(answers);
      await jest.advanceTimersByTimeAsync(0);
      expect(uuids()).toEqual([['a']]);
    });
  });

  it('queues the successors a batch admitted and hands the endpoints it could not fill to the admitter', async () => {
    const successor = { uuid: 'next' } as DeliveryRow;
    recorded.mockResolvedValue({ admitted: [successor], admitMore: ['endpoint-2'] });
    await writer().record(record('a'));
    expect(admitter.enqueue).toHaveBeenCalledWith([successor]);
    expect(admitter.admit).toHaveBeenCalledWith(['endpoint-2']);
  });

  it('retries a batch that hit a deadlock', async () => {
    recorded.mockRejectedValueOnce(pgError('40P01')).mockResolvedValue(none);
    const w = writer();
    await Promise.all([w.record(record('a')), w.record(record('b'))]);
    expect(uuids()).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('fails only the record the database refuses, retrying the others one by one', async () => {
    recorded.mockImplementation(async (records) => {
      if (records.some((r) => r.delivery.uuid === 'bad')) throw pgError('22P05');
      return none;
    });
    const w = writer();
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((uuid) => w.record(record(uuid))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(uuids()).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('fails the whole batch when the database fails for a reason other than the data or an outage', async () => {
    recorded.mockRejectedValue(pgError('53200'));
    const w = writer();
    const results = await Promise.allSettled(['a', 'b'].map((uuid) => w.record(record(uuid))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(uuids()).toEqual([['a', 'b']]);
  });
});
