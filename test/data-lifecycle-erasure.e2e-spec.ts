import { INestApplicationContext } from '@nestjs/common';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, createEndpoint, sql } from './support/webhooks';
import { startWorker } from './support/worker';

const D = '/fleet/int/v1/drivers';
const O = '/fleet/int/v1/orders';
const ERASURES = '/int/v1/erasures';
const ERASED = '[erased]';

type Json = Record<string, any>;

/** A driver's personal data, distinctive enough to be found in any stored text. */
const person = (name: string) => ({
  name: `${name} Kowalczyk`,
  phone: `+31 6 ${name.length}${name.charCodeAt(0)}9 4471`,
  email: `${name.toLowerCase()}.kowalczyk@example.org`,
});

describe('erasure: a record’s data leaves every stored payload and request-log body of its company', () => {
  let api: TestApi;
  let worker: INestApplicationContext | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    api = await startApi({ env: FAST_WEBHOOKS });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    // The receiver echoes the body back: the response bodies in the log hold the data too.
    receiver.respond = (request) => ({ status: 200, body: `thanks for ${request.body}` });
  });
  afterAll(async () => {
    await worker?.close();
    await receiver?.stop();
    await api?.close();
  });

  const as =
    (company: TestCompany) =>
    async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> =>
      http(api.url, method, path, { key: company.key, body });

  /** Every stored text of the company: event payloads, request and response bodies. */
  async function storedTexts(company: TestCompany): Promise<string[]> {
    const events = await sql(api, 'SELECT payload::text AS t FROM webhook_events WHERE company_uuid = $1', [
      company.uuid,
    ]);
    const logs = await sql(
      api,
      `SELECT request_body AS t FROM webhook_request_logs WHERE company_uuid = $1
       UNION ALL SELECT response_body FROM webhook_request_logs WHERE company_uuid = $1`,
      [company.uuid],
    );
    const answers = await sql(
      api,
      'SELECT body AS t FROM idempotency_keys WHERE company_uuid = $1 AND body IS NOT NULL',
      [company.uuid],
    );
    return [...events, ...logs, ...answers].map((row) => row.t as string);
  }
  const mentioning = (texts: string[], values: string[]) =>
    texts.filter((text) => values.some((value) => text.includes(value))).length;

  /** Waits until every event of the company was delivered and logged. */
  async function allDelivered(company: TestCompany): Promise<void> {
    await eventually(async () => {
      const [{ events, logged }] = await sql(
        api,
        `SELECT (SELECT count(*)::int FROM webhook_events WHERE company_uuid = $1) AS events,
                (SELECT count(DISTINCT event_id)::int FROM webhook_request_logs WHERE company_uuid = $1) AS logged`,
        [company.uuid],
      );
      return events > 0 && events === logged;
    }, 30_000);
  }

  it('erases a driver (its own events, an order embedding it, a deleted driver) and nothing else; another company gets 404', async () => {
    const acme = await createCompany(api, 'Erasure Acme');
    const other = await createCompany(api, 'Erasure Other');
    const call = as(acme);
    await createEndpoint(api, acme, `${receiver.url}/acme`);
    await createEndpoint(api, other, `${receiver.url}/other`);

    const ann = person('Anneke');
    const annBefore = { ...ann, name: 'Anneke Oldname' };
    const bob = person('Bartholomeus');
    const carl = person('Carolus');
    // Created with an Idempotency-Key: its answer is kept for repeats, and holds the data too.
    const keyed = (company: TestCompany, body: unknown) =>
      http(api.url, 'POST', D, { key: company.key, body, headers: { 'idempotency-key': 'erasure-ann' } });
    const annUuid = (await keyed(acme, { driver: annBefore })).body.driver.uuid as string;
    expect((await call('PUT', `${D}/${annUuid}`, { driver: { name: ann.name } })).status).toBe(200);
    expect(
      (await call('POST', `${D}/${annUuid}/location`, { latitude: 51.92, longitude: 4.48 })).status,
    ).toBeLessThan(300);
    const bobUuid = (await call('POST', D, { driver: bob })).body.driver.uuid as string;
    const order = (await call('POST', O, { order: { reference: 'ER-1', driver_uuid: annUuid } })).body.order;
    expect(order.driver).toMatchObject({ uuid: annUuid, phone: ann.phone });
    const carlUuid = (await call('POST', D, { driver: carl })).body.driver.uuid as string;
    expect((await call('DELETE', `${D}/${carlUuid}`)).status).toBeLessThan(300);
    // The same person drives for another company too: that company's data is its own.
    expect((await keyed(other, { driver: ann })).status).toBe(201);
    await allDelivered(acme);
    await allDelivered(other);

    const annValues = [ann.name, ann.phone, ann.email, annBefore.name];
    const carlValues = Object.values(carl);
    const before = await storedTexts(acme);
    expect(mentioning(before, annValues)).toBeGreaterThanOrEqual(8);
    expect(mentioning(before, carlValues)).toBeGreaterThanOrEqual(4);

    // Bad requests change nothing; another company's request for the uuid is 404.
    const invalid = await call('POST', ERASURES, { resource: 'drivr', id: annUuid });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0].source.pointer).toBe('/data/attributes/resource');
    expect((await call('POST', ERASURES, { resource: 'driver', id: 'not-a-uuid' })).status).toBe(422);
    expect((await as(other)('POST', ERASURES, { resource: 'driver', id: annUuid })).status).toBe(404);
    expect((await as(other)('POST', ERASURES, { resource: 'driver', id: carlUuid })).status).toBe(404);
    expect((await sql(api, 'SELECT count(*)::int AS n FROM webhook_erasures'))[0].n).toBe(0);

    // Queued while no worker runs: a second request for the record is the same job.
    await worker!.close();
    worker = undefined;
    const first = await call('POST', ERASURES, { resource: 'driver', id: annUuid });
    expect(first.status).toBe(202);
    const [key] = await sql(api, 'SELECT uuid FROM api_keys WHERE company_uuid = $1', [acme.uuid]);
    expect(first.body.erasure).toEqual({
      uuid: expect.any(String),
      status: 'pending',
      resource: 'driver',
      record_id: annUuid,
      rows_redacted: 0,
      requested_by: key.uuid,
      error: null,
      created_at: expect.any(String),
      finished_at: null,
    });
    const again = await call('POST', ERASURES, { resource: 'driver', id: annUuid.toUpperCase() });
    expect(again.status).toBe(202);
    expect(again.body.erasure.uuid).toBe(first.body.erasure.uuid);
    // A deleted driver is erased too (the company's outbox holds its deletion).
    const deleted = await call('POST', ERASURES, { resource: 'driver', id: carlUuid });
    expect(deleted.status).toBe(202);
    expect((await as(other)('GET', `${ERASURES}/${first.body.erasure.uuid}`)).status).toBe(404);

    worker = await startWorker(api.config);
    const finished = async (uuid: string) => {
      let job: Json = {};
      await eventually(async () => {
        job = (await call('GET', `${ERASURES}/${uuid}`)).body.erasure;
        return job.status === 'done';
      }, 30_000);
      return job;
    };
    const annJob = await finished(first.body.erasure.uuid);
    expect(annJob).toMatchObject({ status: 'done', finished_at: expect.any(String) });
    expect(annJob.rows_redacted).toBeGreaterThanOrEqual(8);
    expect((await finished(deleted.body.erasure.uuid)).rows_redacted).toBeGreaterThanOrEqual(4);

    const after = await storedTexts(acme);
    expect(after.length).toBe(before.length);
    expect(after.filter((text) => annValues.some((value) => text.includes(value)))).toEqual([]);
    expect(after.filter((text) => carlValues.some((value) => text.includes(value)))).toEqual([]);
    // Ids, event names and times stay; the attributes read as the marker.
    const [annEvent] = await sql(
      api,
      `SELECT name, payload FROM webhook_events WHERE company_uuid = $1 AND name = 'driver.updated'
       AND payload->'data'->>'id' = $2`,
      [acme.uuid, annUuid],
    );
    expect(annEvent.payload).toMatchObject({
      event: 'driver.updated',
      created_at: expect.any(String),
      data: {
        id: annUuid,
        uuid: annUuid,
        company_uuid: acme.uuid,
        name: ERASED,
        phone: ERASED,
        email: ERASED,
        additionalData: { changes: { name: [ERASED, ERASED] } },
      },
    });
    const [orderEvent] = await sql(
      api,
      `SELECT payload FROM webhook_events WHERE company_uuid = $1 AND name = 'order.created'`,
      [acme.uuid],
    );
    expect(orderEvent.payload.data).toMatchObject({
      reference: 'ER-1',
      driver_uuid: annUuid,
      driver: { uuid: annUuid, name: ERASED, phone: ERASED },
    });
    // Bob's data, and the other company's copy of Ann's, are untouched.
    expect(mentioning(after, Object.values(bob))).toBe(mentioning(before, Object.values(bob)));
    expect(mentioning(after, Object.values(bob))).toBeGreaterThanOrEqual(2);
    const otherTexts = await storedTexts(other);
    expect(otherTexts.filter((text) => text.includes(ann.phone)).length).toBeGreaterThanOrEqual(3);
    expect(otherTexts.some((text) => text.includes(ERASED))).toBe(false);

    // A repeat of the keyed create replays its kept answer, erased; the other company's is its own.
    const repeat = await keyed(acme, { driver: annBefore });
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
    expect(repeat.body.driver).toMatchObject({ uuid: annUuid, name: ERASED, phone: ERASED, email: ERASED });
    expect((await keyed(other, { driver: ann })).body.driver).toMatchObject({ phone: ann.phone });

    // Erased already: a new request is a new job, which finds nothing left.
    const third = await call('POST', ERASURES, { resource: 'driver', id: annUuid });
    expect(third.body.erasure.uuid).not.toBe(first.body.erasure.uuid);
    expect((await finished(third.body.erasure.uuid)).rows_redacted).toBe(0);
    expect((await call('GET', D, undefined)).body.drivers.map((driver: Json) => driver.uuid).sort()).toEqual(
      [annUuid, bobUuid].sort(),
    );
  }, 120_000);
});
