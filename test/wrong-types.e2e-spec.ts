import { FleetExtension } from '@wharf/fleet';
import { BaseResource, Extension, Resource, ResourceModel, createResourceTable } from '@wharf/core';
import { Column, Entity, MigrationInterface, QueryRunner } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';

/** One column of every type the resources SDK derives rules from, all optional. */
@Entity('samples')
@ResourceModel('sample', { sortable: [] })
class Sample extends BaseResource {
  @Column({ type: 'varchar', nullable: true }) label: string | null;
  @Column({ type: 'text', nullable: true }) notes: string | null;
  @Column({ type: 'smallint', nullable: true }) small: number | null;
  @Column({ type: 'integer', nullable: true }) count: number | null;
  @Column({ type: 'bigint', nullable: true }) big: number | null;
  @Column({ type: 'double precision', nullable: true }) weight: number | null;
  @Column({ type: 'real', nullable: true }) ratio: number | null;
  @Column({ type: 'numeric', nullable: true }) price: number | null;
  @Column({ type: 'boolean', nullable: true }) active: boolean | null;
  @Column({ type: 'date', nullable: true }) born_on: string | null;
  @Column({ type: 'timestamptz', nullable: true }) seen_at: Date | null;
  @Column({ type: 'uuid', nullable: true }) owner_uuid: string | null;
  @Column({ type: 'jsonb', nullable: true }) meta: object | null;
  @Column({ type: 'json', nullable: true }) extra: object | null;
  @Column({ type: 'enum', enum: ['open', 'closed'], nullable: true }) state: string | null;
}

@Resource(Sample)
class SampleController {}

class CreateSamples1800000000100 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(
      queryRunner,
      'samples',
      `"label" varchar(255), "notes" text, "small" smallint, "count" integer, "big" bigint,
       "weight" double precision, "ratio" real, "price" numeric, "active" boolean, "born_on" date,
       "seen_at" timestamptz, "owner_uuid" uuid, "meta" jsonb, "extra" json,
       "state" varchar(16) CHECK ("state" IN ('open', 'closed'))`,
    );
    await queryRunner.query(
      'CREATE INDEX "samples_created_at_sort_idx" ON "samples" ("company_uuid", "created_at", "id")',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "samples"');
  }
}

@Extension({
  name: 'samples',
  entities: [Sample],
  migrations: [CreateSamples1800000000100],
  controllers: [SampleController],
})
class SampleExtension {}

const S = '/samples/int/v1/samples';
const V = '/fleet/int/v1/vehicles';
const INTEGER = 'must be an integer number';
const NUMBER = 'must be a number';
const STRING = 'must be a string';
const TIME = 'must be a valid ISO 8601 date string';
const OBJECT = 'must be an object';

/** Per column: values of a wrong JSON type (or a string of no such kind), and what the 422 says first. */
const WRONG: [column: string, values: unknown[], says: string][] = [
  ['label', [123, true, { a: 1 }, ['x']], STRING],
  ['notes', [5, false], STRING],
  ['small', ['12', true, 'abc', 1.5], INTEGER],
  ['count', ['1999', true, 'abc', [1], { n: 1 }], INTEGER],
  ['big', ['12', false], INTEGER],
  ['weight', ['1.5', true, [1]], NUMBER],
  ['ratio', ['0.5', false], NUMBER],
  ['price', ['9.99', true], NUMBER],
  ['active', ['true', 1, 'yes'], 'must be a boolean value'],
  ['born_on', [20260131, true, 'yesterday'], TIME],
  ['seen_at', [1767225600000, false, 'now'], TIME],
  ['owner_uuid', [123, 'abc', true], 'must be a UUID'],
  ['meta', ['x', 5, [1, 2], true], OBJECT],
  ['extra', ['{"a":1}', 7], OBJECT],
  ['state', [1, true, 'ajar'], 'must be one of the following values: open, closed'],
];

describe('a value of the wrong type is refused as such, first, with its pointer', () => {
  let api: TestApi;
  let acme: TestCompany;
  const call = (method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key: acme.key, body });

  beforeAll(async () => {
    api = await startApi({ extensions: [FleetExtension, SampleExtension] });
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  it.each(WRONG)('%s: %j', async (column, values, says) => {
    for (const value of values) {
      const refused = await call('POST', S, { sample: { [column]: value } });
      expect([refused.status, refused.body.errors]).toEqual([
        422,
        [
          expect.objectContaining({
            detail: `${column} ${says}.`,
            source: { pointer: `/data/attributes/${column}` },
          }),
        ],
      ]);
    }
  });

  it('the same on update, and a value of the right type gets the rule it breaks', async () => {
    const created = await call('POST', S, {
      sample: {
        label: 'a',
        small: 3,
        count: 1999,
        big: 12,
        weight: 1.5,
        ratio: 0.5,
        price: 9.99,
        active: true,
        born_on: '2026-01-31',
        seen_at: '2026-01-31T12:00:00.000Z',
        owner_uuid: '7f3c1b6e-1d2a-4c5b-9e8f-0a1b2c3d4e5f',
        meta: { a: 1 },
        extra: { b: 2 },
        state: 'open',
      },
    });
    expect(created.status).toBe(201);
    const path = `${S}/${created.body.sample.uuid}`;
    const refused = await call('PATCH', path, { sample: { count: '2000', small: 40_000 } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((e: any) => [e.source.pointer, e.detail])).toEqual([
      ['/data/attributes/small', 'small must not be greater than 32767.'],
      ['/data/attributes/count', `count ${INTEGER}.`],
    ]);
    expect((await call('GET', path)).body).toEqual(created.body);
  });

  it('nothing refused was written', async () => {
    const list = await call('GET', S);
    expect(list.body.meta.total).toBe(1);
  });

  it("a hand-written DTO's rules (vehicle): the type first, whatever order its decorators run in", async () => {
    for (const year of ['1999', true, 'abc']) {
      const refused = await call('POST', V, { vehicle: { plate_number: 'X', year } });
      expect([refused.status, refused.body.errors]).toEqual([
        422,
        [
          expect.objectContaining({
            detail: `year ${INTEGER}.`,
            source: { pointer: '/data/attributes/year' },
          }),
        ],
      ]);
    }
    const plate = await call('POST', V, { vehicle: { plate_number: 123 } });
    expect(plate.body.errors).toEqual([
      expect.objectContaining({
        detail: `plate_number ${STRING}.`,
        source: { pointer: '/data/attributes/plate_number' },
      }),
    ]);
    expect((await call('POST', V, { vehicle: { plate_number: 'X', year: 2200 } })).body.errors).toEqual([
      expect.objectContaining({ detail: 'year must not be greater than 2100.' }),
    ]);
    expect((await call('GET', V)).body.meta.total).toBe(0);
  });
});
