import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@nestjs/common';
import {
  AppConfig,
  BaseResource,
  BelongsTo,
  Extension,
  ResourceModel,
  compareSchema,
  dataSourceOptions,
  dropDatabase,
  ensureDatabase,
  extensionManifest,
  generateMigration,
  problemLine,
  runMigrations,
} from '@wharf/core';
import { Location } from '@wharf/locations';
import { composeWharf } from '@wharf/webhooks';
import { IsString } from 'class-validator';
import { Column, DataSource, Entity, Relation } from 'typeorm';
import { CLI, assertBuilt, runNode } from './support/processes';
import { testConfig } from './support/test-app';

class InvoiceDto {
  @IsString() number: string;
}

const INVOICE_STATUSES = ['draft', 'sent', 'paid'];

/** Version 1 of a billing extension's entity: no migration yet. */
@Entity('invoices')
@ResourceModel('invoice', { dto: InvoiceDto })
class Invoice extends BaseResource {
  @Column({ type: 'varchar', length: 64 }) number: string;
  @Column({ type: 'integer', nullable: true }) total: number | null;
  @Column({ type: 'enum', enum: INVOICE_STATUSES, default: 'draft' }) status: string;
  @Column({ type: 'jsonb', default: () => `'{}'` }) meta: Record<string, unknown>;
  @Column({ type: 'uuid', nullable: true }) location_uuid: string | null;
  @BelongsTo(() => Location) location: Relation<Location>;
}

/** Version 2: the author added a column to the entity. */
@Entity('invoices')
@ResourceModel('invoice', { dto: InvoiceDto })
class InvoiceWithDueDate extends Invoice {
  @Column({ type: 'timestamptz', precision: 3, nullable: true }) due_at: Date | null;
}

function billing(entity: Type, migrations: Type[]): Type {
  @Extension({ name: 'billing', entities: [entity], migrations })
  class BillingExtension {}
  return BillingExtension;
}

/** Writes a generated migration where jest can load it (it is TypeScript importing `@wharf/core`). */
function load(dir: string, fileName: string, source: string, className: string): Type {
  const file = join(dir, fileName);
  writeFileSync(file, source);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file)[className];
}

describe('migrations: generated from the entities, checked against them', () => {
  let config: AppConfig;
  const dir = mkdtempSync(join(tmpdir(), 'wharf-migrations-'));

  beforeEach(async () => {
    config = testConfig();
    await ensureDatabase(config.databaseUrl);
  });
  afterEach(() => dropDatabase(config.databaseUrl));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  const problems = (extension: Type) =>
    withDataSource(extension, async (ds) =>
      (await compareSchema(ds, composeWharf(config, [extension]).manifests)).map(problemLine),
    );

  it('a new entity: the check names its table, generate writes the table, then they agree', async () => {
    expect(await problems(billing(Invoice, []))).toEqual([
      'Extension "billing", resource "invoice": table "invoices" does not exist in the database: its migration is missing, not listed in the extension\'s `migrations`, or not run yet (npm run migrate)',
    ]);
    const generated = await withDataSource(billing(Invoice, []), (ds) =>
      generateMigration(
        ds,
        composeWharf(config, [billing(Invoice, [])]).manifests,
        'billing',
        'CreateInvoices',
        1900000000000,
      ),
    );
    expect(generated).toMatchObject({
      className: 'CreateInvoices1900000000000',
      fileName: '1900000000000-create-invoices.ts',
    });
    expect(generated!.source).toContain(`await createResourceTable(`);
    expect(generated!.source).toContain(`"number" varchar(64) NOT NULL`);
    expect(generated!.source).toContain(
      `"status" varchar(16) CHECK ("status" IN ('draft', 'sent', 'paid')) NOT NULL DEFAULT 'draft'`,
    );
    expect(generated!.source).toContain(
      `"location_uuid" uuid REFERENCES "locations" ("uuid") ON DELETE SET NULL`,
    );
    const create = load(dir, generated!.fileName, generated!.source, generated!.className);
    expect(await problems(billing(Invoice, [create]))).toEqual([]);
  });

  it('a column added to the entity without a migration: the check names it; generate adds it', async () => {
    const v1 = await withDataSource(billing(Invoice, []), (ds) =>
      generateMigration(
        ds,
        composeWharf(config, [billing(Invoice, [])]).manifests,
        'billing',
        'CreateInvoices',
        1900000000001,
      ),
    );
    const create = load(dir, v1!.fileName, v1!.source, v1!.className);
    expect(await problems(billing(InvoiceWithDueDate, [create]))).toEqual([
      'Extension "billing", resource "invoice", field "due_at": column invoices.due_at does not exist in the database: add a migration (npm run cli -- migration:generate billing <Name>) and list it in the extension\'s `migrations`',
    ]);
    const v2 = await withDataSource(billing(InvoiceWithDueDate, [create]), (ds) =>
      generateMigration(
        ds,
        composeWharf(config, [billing(InvoiceWithDueDate, [create])]).manifests,
        'billing',
        'AddInvoiceDueAt',
        1900000000002,
      ),
    );
    expect(v2!.source).toContain('ALTER TABLE "invoices" ADD COLUMN "due_at" timestamptz(3)');
    expect(v2!.source).toContain(`ALTER TABLE "invoices" DROP COLUMN "due_at"`);
    const add = load(dir, v2!.fileName, v2!.source, v2!.className);
    expect(await problems(billing(InvoiceWithDueDate, [create, add]))).toEqual([]);
    expect(extensionManifest(billing(InvoiceWithDueDate, [create, add])).migrations).toHaveLength(2);
  });
});

describe('migration:check (the CLI): the core, webhooks and every bundled extension agree with their migrations', () => {
  it('passes', async () => {
    assertBuilt();
    const config = testConfig();
    const run = runNode(CLI, ['migration:check'], {
      DATABASE_URL: config.databaseUrl,
      REDIS_URL: config.redisUrl,
      NODE_ENV: 'test',
    });
    const { code } = await run.exited;
    expect({ code, output: run.output() }).toEqual({
      code: 0,
      output: 'Entities and migrations agree (core, locations, accounts, webhooks, fleet, inventory).\n',
    });
  });
});
