import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@nestjs/common';
import {
  AppConfig,
  BaseResource,
  Extension,
  ResourceModel,
  UnfilledColumnsError,
  compareSchema,
  dataSourceOptions,
  dropDatabase,
  ensureDatabase,
  generateMigration,
  runMigrations,
} from '@wharf/core';
import { composeWharf } from '@wharf/webhooks';
import { Column, DataSource, Entity } from 'typeorm';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { CLI, ensureBuilt, runNode } from './support/processes';
import { deleteQueueKeys, query, startApi, testConfig, TestApi } from './support/test-app';

describe('a body wrapped in the dasherized resource name', () => {
  let api: TestApi;
  let acme: TestCompany;
  const W = '/inventory/int/v1/warehouses';
  const S = '/inventory/int/v1/warehouse-sections';
  const E = '/int/v1/webhook-endpoints';
  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
  });
  afterAll(() => api.close());
  const call = (method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key: acme.key, body });

  it('is read like the underscored key responses use, on create and update', async () => {
    const warehouse = await call('POST', W, {
      warehouse: { name: 'W', address: 'a', city: 'c', state: 's', zip: 'z', capacity: 1 },
    });
    expect(warehouse.status).toBe(201);
    const dashed = await call('POST', S, {
      'warehouse-section': { warehouse_uuid: warehouse.body.warehouse.uuid, name: 'Cold' },
    });
    const underscored = await call('POST', S, {
      warehouse_section: { warehouse_uuid: warehouse.body.warehouse.uuid, name: 'Dry' },
    });
    expect([dashed.status, underscored.status]).toEqual([201, 201]);
    expect(dashed.body.warehouse_section.name).toBe('Cold');
    const patched = await call('PATCH', `${S}/${dashed.body.warehouse_section.uuid}`, {
      'warehouse-section': { name: 'Frozen' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.warehouse_section.name).toBe('Frozen');
    const endpoint = await call('POST', E, {
      'webhook-endpoint': { url: 'http://127.0.0.1:9/hook', events: ['warehouse.created'] },
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.webhook_endpoint.url).toBe('http://127.0.0.1:9/hook');
  });

  it('any other wrapper is one 422 naming the keys it expects, and writes nothing', async () => {
    const before = (await call('GET', E)).body.webhook_endpoints.length;
    const wrong = await call('POST', E, {
      webhookEndpoint: { url: 'http://127.0.0.1:9/other', events: ['warehouse.created'] },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({
        source: { pointer: '/data/attributes/webhookEndpoint' },
        detail:
          'webhookEndpoint is not a field of webhook-endpoint; wrap the record in "webhook_endpoint" (or "webhook-endpoint") or send its fields unwrapped.',
      }),
    ]);
    expect((await call('GET', E)).body.webhook_endpoints).toHaveLength(before);
  });
});

/** Version 1 of an entity with rows; version 2 adds a NOT NULL column without a default, as in the issue. */
@Entity('bays')
@ResourceModel('bay', { sortable: [] })
class Bay extends BaseResource {
  @Column('varchar') name: string;
}

@Entity('bays')
@ResourceModel('bay', { sortable: [] })
class BayWithSize extends Bay {
  @Column('integer') size: number;
}

@Entity('bays')
@ResourceModel('bay', { sortable: [] })
class BayWithLevel extends Bay {
  @Column({ type: 'integer', default: 1 }) level: number;
}

function yard(entity: Type, migrations: Type[]): Type {
  @Extension({ name: 'yard', entities: [entity], migrations })
  class YardExtension {}
  return YardExtension;
}

describe('migration:generate on a table that may have rows (the migration guard)', () => {
  let config: AppConfig;
  const dir = mkdtempSync(join(tmpdir(), 'wharf-guard-'));
  let create: Type;

  /** Writes a generated migration where jest can load it (TypeScript importing typeorm). */
  function load(generated: { fileName: string; source: string; className: string }): Type {
    const file = join(dir, generated.fileName);
    writeFileSync(file, generated.source);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file)[generated.className];
  }

  async function withDataSource<T>(extension: Type, work: (ds: DataSource) => Promise<T>): Promise<T> {
    const { manifests } = composeWharf(config, [extension]);
    await runMigrations(config.databaseUrl, manifests);
    const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, manifests));
    await dataSource.initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  }

  const generate = (entity: Type, name: string, timestamp: number, backfill?: Record<string, string>) =>
    withDataSource(yard(entity, [create]), (ds) =>
      generateMigration(
        ds,
        composeWharf(config, [yard(entity, [create])]).manifests,
        'yard',
        name,
        timestamp,
        {
          backfill,
        },
      ),
    );

  beforeEach(async () => {
    config = testConfig();
    await ensureDatabase(config.databaseUrl);
    const v1 = await withDataSource(yard(Bay, []), (ds) =>
      generateMigration(
        ds,
        composeWharf(config, [yard(Bay, [])]).manifests,
        'yard',
        'CreateBays',
        1900000000000,
      ),
    );
    create = load(v1!);
    await runMigrations(config.databaseUrl, composeWharf(config, [yard(Bay, [create])]).manifests);
    await query(config, `INSERT INTO bays (name) VALUES ('B1'), ('B2')`);
  });
  afterEach(() => dropDatabase(config.databaseUrl));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses ADD COLUMN … NOT NULL without a default, naming the column and the ways out', async () => {
    const refused = await generate(BayWithSize, 'AddBaySize', 1900000000001).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnfilledColumnsError);
    expect((refused as UnfilledColumnsError).columns).toEqual([
      { table: 'bays', column: 'size', added: true },
    ]);
    expect((refused as Error).message).toBe(
      'column bays.size is NOT NULL without a default, and "bays" already exists: ADD COLUMN … NOT NULL fails on a table with rows. Give the column a default (@Column({ …, default: … })), make it nullable, or fill existing rows: --backfill size=<SQL value>',
    );
    // What it used to write, and what PostgreSQL then says on a table with rows.
    const naive = await query(config, 'ALTER TABLE "bays" ADD COLUMN "size" integer NOT NULL').catch(
      (error: Error) => error.message,
    );
    expect(naive).toBe('column "size" of relation "bays" contains null values');
  });

  it('with --backfill: adds the column, fills the existing rows, then sets NOT NULL, and it runs', async () => {
    const generated = await generate(BayWithSize, 'AddBaySize', 1900000000002, { size: '4' });
    expect(generated!.source).toContain('ALTER TABLE "bays" ADD COLUMN "size" integer`');
    expect(generated!.source).toContain('UPDATE "bays" SET "size" = 4`');
    expect(generated!.source).toContain(`ALTER TABLE "bays" ALTER COLUMN "size" SET NOT NULL'`);
    const add = load(generated!);
    const manifests = composeWharf(config, [yard(BayWithSize, [create, add])]).manifests;
    expect(await runMigrations(config.databaseUrl, manifests)).toEqual(['AddBaySize1900000000002']);
    expect(await query(config, 'SELECT name, size FROM bays ORDER BY name')).toEqual([
      { name: 'B1', size: 4 },
      { name: 'B2', size: 4 },
    ]);
    await withDataSource(yard(BayWithSize, [create, add]), async (ds) =>
      expect(await compareSchema(ds, manifests)).toEqual([]),
    );
  });

  it('a NOT NULL column with a default needs nothing more: PostgreSQL fills the rows with it', async () => {
    const generated = await generate(BayWithLevel, 'AddBayLevel', 1900000000003);
    expect(generated!.source).toContain('ADD COLUMN "level" integer NOT NULL DEFAULT 1');
    const manifests = composeWharf(config, [yard(BayWithLevel, [create, load(generated!)])]).manifests;
    await runMigrations(config.databaseUrl, manifests);
    expect(await query(config, 'SELECT level FROM bays')).toEqual([{ level: 1 }, { level: 1 }]);
  });
});

/**
 * The same through the CLI, with an extension as a user writes one (plain JavaScript here, so the built
 * CLI can load it by path): version 1 migrated with rows, version 2 adding `size integer NOT NULL`.
 */
const DEPOT = `
const { BaseResource, Extension, Resource, ResourceModel, createResourceTable } = require('@wharf/core');
const { Column, Entity } = require('typeorm');
const decorate = (decorators, target, key) => Reflect.decorate(decorators, target, key);

class ParkingBay extends BaseResource {}
decorate([Column('varchar')], ParkingBay.prototype, 'name');
if (process.env.DEPOT_VERSION === '2') decorate([Column('integer')], ParkingBay.prototype, 'size');
decorate([Entity('parking_bays'), ResourceModel('parking-bay', { sortable: [] })], ParkingBay);
class ParkingBayController {}
decorate([Resource(ParkingBay)], ParkingBayController);

class CreateParkingBays1900000000000 {
  name = 'CreateParkingBays1900000000000';
  async up(queryRunner) {
    await createResourceTable(queryRunner, 'parking_bays', '"name" varchar(255) NOT NULL');
  }
  async down(queryRunner) {
    await queryRunner.query('DROP TABLE "parking_bays"');
  }
}
// What migration:generate used to write for version 2.
class AddParkingBaySize1900000000001 {
  name = 'AddParkingBaySize1900000000001';
  async up(queryRunner) {
    await queryRunner.query('ALTER TABLE "parking_bays" ADD COLUMN "size" integer NOT NULL');
  }
  async down(queryRunner) {
    await queryRunner.query('ALTER TABLE "parking_bays" DROP COLUMN "size"');
  }
}
const migrations = [CreateParkingBays1900000000000];
if (process.env.DEPOT_NAIVE === '1') migrations.push(AddParkingBaySize1900000000001);
// A generated migration listed under its class name (its file is TypeScript, which node cannot load here).
const listed = process.env.DEPOT_LISTED;
if (listed) {
  const migration = {
    [listed]: class {
      async up(queryRunner) {
        await queryRunner.query('ALTER TABLE "parking_bays" ADD COLUMN "size" integer NOT NULL DEFAULT 0');
      }
      async down(queryRunner) {
        await queryRunner.query('ALTER TABLE "parking_bays" DROP COLUMN "size"');
      }
    },
  }[listed];
  migrations.push(migration);
}

class DepotExtension {}
decorate(
  [Extension({ name: 'depot', entities: [ParkingBay], controllers: [ParkingBayController], migrations })],
  DepotExtension,
);
module.exports = { DepotExtension };
`;

describe('the CLI on an extension whose table has rows', () => {
  let config: AppConfig;
  const temp = mkdtempSync(join(tmpdir(), 'wharf-depot-'));
  const out = join(temp, 'out');
  let env: Record<string, string>;

  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const run = runNode(CLI, args, { ...env, ...extra });
    const { code } = await run.exited;
    return { code, output: run.output() };
  };

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(join(temp, 'depot'));
    mkdirSync(out);
    writeFileSync(join(temp, 'depot', 'index.js'), DEPOT);
    config = testConfig();
    env = {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      QUEUE_PREFIX: config.queuePrefix,
      NODE_ENV: 'test',
      EXTENSIONS: join(temp, 'depot'),
    };
    expect(await cli(['migrate'])).toEqual({
      code: 0,
      output: expect.stringContaining('CreateParkingBays1900000000000'),
    });
    await query(config, `INSERT INTO parking_bays (name) VALUES ('P1')`);
  }, 300_000);
  afterAll(async () => {
    await dropDatabase(config.databaseUrl);
    await deleteQueueKeys(config);
    rmSync(temp, { recursive: true, force: true });
  });

  it('migration:generate refuses, writing nothing, and says how to go on', async () => {
    const { code, output } = await cli(['migration:generate', 'depot', 'AddParkingBaySize', '--dir', out], {
      DEPOT_VERSION: '2',
    });
    expect(code).toBe(2);
    expect(output).toBe(
      'wharf: nothing written: column parking_bays.size is NOT NULL without a default, and "parking_bays" already exists: ADD COLUMN … NOT NULL fails on a table with rows. Give the column a default (@Column({ …, default: … })), make it nullable, or fill existing rows: --backfill size=<SQL value>\n',
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it('migration:generate --backfill size=0 writes the three steps', async () => {
    const { code, output } = await cli(
      ['migration:generate', 'depot', 'AddParkingBaySize', '--dir', out, '--backfill', 'size=0'],
      { DEPOT_VERSION: '2' },
    );
    expect({ code, output }).toEqual({
      code: 0,
      output: expect.stringMatching(/^Wrote .*add-parking-bay-size\.ts/),
    });
    expect(readdirSync(out)).toEqual([expect.stringMatching(/^\d{13}-add-parking-bay-size\.ts$/)]);
  });

  it('npm run migrate: a failing migration is one line naming it and its statement, exit 1', async () => {
    const { code, output } = await cli(['migrate'], { DEPOT_VERSION: '2', DEPOT_NAIVE: '1' });
    expect({ code, output }).toEqual({
      code: 1,
      output:
        'wharf: migration AddParkingBaySize1900000000001 failed: column "size" of relation "parking_bays" contains null values; statement: ALTER TABLE "parking_bays" ADD COLUMN "size" integer NOT NULL\n',
    });
    // Rolled back: the migration is not recorded and the column not added.
    expect(
      await query(config, `SELECT name FROM wharf_migrations WHERE name LIKE 'AddParkingBaySize%'`),
    ).toEqual([]);
  });

  it('a generated migration the extension does not list: migrate names the file and the line to add', async () => {
    // Without --dir: written beside the extension's entry, where the check looks.
    const migrations = join(temp, 'depot', 'migrations');
    const generated = await cli(
      ['migration:generate', 'depot', 'AddParkingBaySize', '--backfill', 'size=0'],
      {
        DEPOT_VERSION: '2',
      },
    );
    expect(generated).toEqual({
      code: 0,
      output: expect.stringMatching(/^Wrote .*add-parking-bay-size\.ts/),
    });
    const [file] = readdirSync(migrations);
    expect(file).toMatch(/^\d{13}-add-parking-bay-size\.ts$/);
    const className = `AddParkingBaySize${file.slice(0, 13)}`;

    expect(await cli(['migrate'], { DEPOT_VERSION: '2' })).toEqual({
      code: 1,
      output: `wharf: Extension "depot", migration file ${join(migrations, file)}: ${className} is not listed in the extension's \`migrations\`, so it is never run: add ${className} to \`migrations: [...]\` of @Extension({ name: 'depot' }), with import { ${className} } from './migrations/${file.replace(/\.ts$/, '')}';\n`,
    });
    // The next migration is not generated on top of it either.
    expect(
      await cli(['migration:generate', 'depot', 'Other', '--backfill', 'size=0'], { DEPOT_VERSION: '2' }),
    ).toEqual({ code: 1, output: expect.stringContaining(`${className} is not listed`) });

    expect(await cli(['migrate'], { DEPOT_VERSION: '2', DEPOT_LISTED: className })).toEqual({
      code: 0,
      output: expect.stringContaining(`Applied 1 migration: ${className}`),
    });
  });
});
