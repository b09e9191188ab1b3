import { composeWharf } from '@wharf/webhooks';
import { Injectable, Logger, Type } from '@nestjs/common';
import { createApi } from '@wharf/api';
import {
  BaseResource,
  BelongsTo,
  Extension,
  ExtensionError,
  HasMany,
  Resource,
  ResourceChange,
  ResourceHooks,
  ResourceModel,
  WriteTransaction,
  composeHost,
  createResourceTable,
  dropDatabase,
} from '@wharf/core';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { Client } from 'pg';
import { Column, Entity, MigrationInterface, QueryRunner, Relation } from 'typeorm';
import { createCompany } from './support/accounts';
import { http } from './support/http';
import { deleteQueueKeys, prepareDatabase, startApi, testConfig } from './support/test-app';

// ---- the mistakes of the issue, each made once by a "billing" extension -----------------------------

class InvoiceDto {
  @IsString() number: string;
  @IsOptional() @IsInt() total?: number;
}

/** A column the entity and DTO have but no migration creates. */
@Entity('invoices')
@ResourceModel('invoice', { dto: InvoiceDto })
class Invoice extends BaseResource {
  @Column('varchar') number: string;
  @Column({ type: 'integer', nullable: true }) total: number | null;
}

class CreateInvoicesWithoutTotal1900000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(queryRunner, 'invoices', `"number" varchar(255) NOT NULL`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "invoices"');
  }
}

class CreateInvoicesWithTextTotal1900000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(queryRunner, 'invoices', `"number" varchar(255) NOT NULL, "total" text`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "invoices"');
  }
}

@Resource(Invoice)
class InvoiceController {}

@Extension({
  name: 'billing',
  entities: [Invoice],
  migrations: [CreateInvoicesWithoutTotal1900000000000],
  controllers: [InvoiceController],
})
class MissingColumnExtension {}

@Extension({ name: 'billing', entities: [Invoice], controllers: [InvoiceController] })
class MigrationLeftOutExtension {}

@Extension({
  name: 'billing',
  entities: [Invoice],
  migrations: [CreateInvoicesWithTextTotal1900000000000],
  controllers: [InvoiceController],
})
class WrongTypeExtension {}

class ColourDto {
  @IsString() number: string;
  @IsString() colour: string;
}

@Entity('receipts')
@ResourceModel('receipt', { dto: ColourDto })
class Receipt extends BaseResource {
  @Column('varchar') number: string;
}

@Extension({ name: 'billing', entities: [Receipt] })
class DtoFieldExtension {}

@Entity('credit_notes')
@ResourceModel('Invoice', { dto: InvoiceDto })
class CapitalisedNote extends BaseResource {
  @Column('varchar') number: string;
}

@Extension({ name: 'billing', entities: [CapitalisedNote] })
class CapitalExtension {}

@Entity('payments')
@ResourceModel('payment-items', { dto: InvoiceDto })
class PluralModel extends BaseResource {
  @Column('varchar') number: string;
}

@Extension({ name: 'billing', entities: [PluralModel] })
class PluralModelExtension {}

@Resource(Receipt)
class ReceiptController {}

/** Serves receipts without listing the Receipt entity. */
@Extension({ name: 'billing', entities: [Invoice], controllers: [InvoiceController, ReceiptController] })
class UnlistedResourceExtension {}

@Entity('statements')
@ResourceModel('statement', { dto: InvoiceDto })
class Statement extends BaseResource {
  @Column('varchar') number: string;
  @HasMany(() => StatementLine, 'statement') lines: StatementLine[];
}

@Entity('statement_lines')
@ResourceModel('statement-line', { dto: InvoiceDto })
class StatementLine extends BaseResource {
  @Column('varchar') number: string;
  @Column('uuid') statement_uuid: string;
  @BelongsTo(() => Statement, { inverse: 'lines', onDelete: 'CASCADE' }) statement: Relation<Statement>;
}

@Extension({ name: 'billing', entities: [Statement] })
class EntityNotListedExtension {}

/** The same relation with its target named by class name (`import type` both ways). */
@Entity('ledgers')
@ResourceModel('ledger', { dto: InvoiceDto })
class Ledger extends BaseResource {
  @Column('varchar') number: string;
  @HasMany('StatementLine', 'statement') lines: StatementLine[];
}

@Extension({ name: 'billing', entities: [Ledger] })
class NamedEntityNotListedExtension {}

// ---- an extension that emits an event it did not declare --------------------------------------------

class ParcelDto {
  @IsString() name: string;
}

@Injectable()
class ParcelHooks implements ResourceHooks {
  afterWrite(tx: WriteTransaction, change: ResourceChange): void {
    tx.emit({ name: 'parcel.sent', record: change.record });
    tx.emit({ name: 'parcel.lost', record: change.record });
  }
}

@Entity('parcels')
@ResourceModel('parcel', { dto: ParcelDto, hooks: ParcelHooks })
class Parcel extends BaseResource {
  @Column('varchar') name: string;
}

class CreateParcels1900000000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await createResourceTable(queryRunner, 'parcels', `"name" varchar(255) NOT NULL`);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "parcels"');
  }
}

@Resource(Parcel)
class ParcelController {}

@Extension({
  name: 'post',
  entities: [Parcel],
  migrations: [CreateParcels1900000000001],
  controllers: [ParcelController],
  events: [{ name: 'parcel.sent', description: 'A parcel left.' }],
})
class PostExtension {}

// -----------------------------------------------------------------------------------------------------

/** The error composing the host with `extension` throws: one line, an ExtensionError. */
function composeError(extension: Type): ExtensionError {
  try {
    composeHost(testConfig(), [], [extension]);
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).not.toContain('\n');
    return error as ExtensionError;
  }
  throw new Error('composing the host did not fail');
}

describe('extension boot checks: mistakes found before anything is served', () => {
  it('a DTO field the entity lacks', () => {
    expect(composeError(DtoFieldExtension).message).toBe(
      'Extension "billing", resource "receipt", field "colour": the DTO ColourDto declares it but entity Receipt has no such column (add a @Column or remove it from the DTO)',
    );
  });

  it('a plural or capitalised resource name is refused', () => {
    expect(composeError(PluralModelExtension).message).toMatch(
      /^Extension "billing", resource "payment-items": @ResourceModel\("payment-items" is plural.*"payment-item"/,
    );
    expect(composeError(CapitalExtension).message).toMatch(
      /^Extension "billing", resource "Invoice": @ResourceModel\("Invoice" is not a resource name: use lower-case words joined by dashes \(e\.g\. "invoice"\)/,
    );
  });

  it('a @Resource whose entity no extension lists (a misspelt name cannot compile: @Resource takes the entity class)', () => {
    expect(composeError(UnlistedResourceExtension).message).toBe(
      'Extension "billing", controller ReceiptController: @Resource(Receipt) serves an entity no loaded extension lists in its `entities`',
    );
  });

  it('a related entity that no extension lists in `entities`', () => {
    expect(composeError(EntityNotListedExtension).message).toBe(
      'Extension "billing", resource "statement", field "lines": refers to entity StatementLine, which no loaded extension lists in its `entities`',
    );
  });

  it('a related entity named by class name that no extension lists in `entities`', () => {
    expect(composeError(NamedEntityNotListedExtension).message).toBe(
      'Extension "billing", resource "ledger", field "lines": refers to entity StatementLine, which no loaded extension lists in its `entities`',
    );
  });

  it('the bundled extensions pass every check', () => {
    expect(() => composeWharf(testConfig())).not.toThrow();
  });
});

describe('extension boot checks: the database must hold every entity column', () => {
  async function bootError(extension: Type): Promise<ExtensionError> {
    const config = testConfig();
    try {
      await prepareDatabase(config, [extension]);
      const error = await createApi(config, { extensions: [extension] }).then(
        async (app) => {
          await app.close();
          throw new Error('the api started');
        },
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(ExtensionError);
      expect((error as Error).message).not.toContain('\n');
      return error as ExtensionError;
    } finally {
      await dropDatabase(config.databaseUrl);
      await deleteQueueKeys(config);
    }
  }

  it('a column in entity and DTO without a migration fails the start, naming the column', async () => {
    expect((await bootError(MissingColumnExtension)).message).toBe(
      'Extension "billing", resource "invoice", field "total": column invoices.total does not exist in the database: add a migration (npm run cli -- migration:generate billing <Name>) and list it in the extension\'s `migrations`',
    );
  });

  it('a migration left out of `migrations:` fails the start, naming the table', async () => {
    expect((await bootError(MigrationLeftOutExtension)).message).toBe(
      'Extension "billing", resource "invoice": table "invoices" does not exist in the database: its migration is missing, not listed in the extension\'s `migrations`, or not run yet (npm run migrate)',
    );
  });

  it('a column whose stored type is incompatible with the entity fails the start', async () => {
    expect((await bootError(WrongTypeExtension)).message).toBe(
      'Extension "billing", resource "invoice", field "total": column invoices.total is text in the database but the entity declares integer',
    );
  });
});

describe('extension boot checks: tx.emit of an undeclared event', () => {
  async function outbox(databaseUrl: string): Promise<string[]> {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT "name" FROM "webhook_events" ORDER BY "id"');
      return rows.map((row) => row.name as string);
    } finally {
      await client.end();
    }
  }

  it('throws in tests (and development): the write rolls back and nothing is emitted', async () => {
    const api = await startApi({ extensions: [PostExtension] });
    try {
      const acme = await createCompany(api);
      const res = await http(api.url, 'POST', '/post/int/v1/parcels', {
        key: acme.key,
        body: { name: 'P1' },
      });
      expect(res.status).toBe(500);
      const list = await http(api.url, 'GET', '/post/int/v1/parcels', { key: acme.key });
      expect(list.body.meta.total).toBe(0);
      expect(await outbox(api.config.databaseUrl)).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('is logged and refused in production: the declared event and the change go out, the undeclared one does not', async () => {
    const spy = jest.spyOn(Logger.prototype, 'error');
    const api = await startApi({
      extensions: [PostExtension],
      env: { NODE_ENV: 'production', APP_KEY: Buffer.alloc(32, 7).toString('base64') },
    });
    try {
      const acme = await createCompany(api);
      const res = await http(api.url, 'POST', '/post/int/v1/parcels', {
        key: acme.key,
        body: { name: 'P1' },
      });
      expect(res.status).toBe(201);
      expect(await outbox(api.config.databaseUrl)).toEqual(['parcel.created', 'parcel.sent']);
      expect(spy).toHaveBeenCalledWith(
        'tx.emit("parcel.lost"): no loaded extension declares this event in @Extension({ events }); the event was not emitted.',
      );
    } finally {
      spy.mockRestore();
      await api.close();
    }
  });
});
