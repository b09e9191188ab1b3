import 'reflect-metadata';
import { createHash, randomBytes } from 'node:crypto';
import {
  Body,
  CanActivate,
  ClassSerializerInterceptor,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  Injectable,
  Module,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Query,
  UnauthorizedException,
  UseGuards,
  UseInterceptors,
  createParamDecorator,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { Exclude, Expose } from 'class-transformer';
import {
  Column,
  CreateDateColumn,
  DataSource,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  Repository,
  UpdateDateColumn,
} from 'typeorm';

/**
 * The "peer" reference of bench:api: what a NestJS user would write for the same routes without Wharf.
 * Stock Express adapter, TypeORM entities with relations and repositories (`relations` loads the
 * embeds), a guard caching the key lookup 5 s, ClassSerializerInterceptor, and a transaction that
 * saves the record and its outbox row together.
 */

abstract class Row {
  @Exclude() @PrimaryGeneratedColumn({ name: 'id' }) internalId: number;
  @Column('uuid', { generated: 'uuid' }) uuid: string;
  @Column('uuid') company_uuid: string;
  @CreateDateColumn({ type: 'timestamptz' }) created_at: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updated_at: Date;
  @Expose() get id() {
    return this.uuid;
  }
}

// `id` is the integer key column; the entities name it internalId so `id` can carry the uuid on the wire.
@Entity('locations')
class LocationRow extends Row {
  @Column('varchar') name: string;
  @Column('varchar', { nullable: true }) street: string | null;
  @Column('varchar', { nullable: true }) city: string | null;
  @Column('varchar', { nullable: true }) state: string | null;
  @Column('varchar', { nullable: true }) zip: string | null;
  @Column('varchar', { nullable: true }) country: string | null;
  @Column('double precision', { nullable: true }) latitude: number | null;
  @Column('double precision', { nullable: true }) longitude: number | null;
}

@Entity('warehouse_sections')
class SectionRow extends Row {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') name: string;
  @Column('text', { nullable: true }) description: string | null;
  @Exclude()
  @ManyToOne(() => WarehouseRow, (w) => w.sections)
  @JoinColumn({ name: 'warehouse_uuid', referencedColumnName: 'uuid' })
  warehouse: unknown;
}

@Entity('warehouse_docks')
class DockRow extends Row {
  @Column('uuid') warehouse_uuid: string;
  @Column('varchar') dock_number: string;
  @Column('varchar') direction: string;
  @Column('integer', { nullable: true }) capacity: number | null;
  @Column('varchar') status: string;
  @Exclude()
  @ManyToOne(() => WarehouseRow, (w) => w.docks)
  @JoinColumn({ name: 'warehouse_uuid', referencedColumnName: 'uuid' })
  warehouse: unknown;
}

@Entity('warehouses')
class WarehouseRow extends Row {
  @Column('uuid', { nullable: true }) location_uuid: string | null;
  @Column('varchar') name: string;
  @Column('varchar') address: string;
  @Column('varchar') city: string;
  @Column('varchar') state: string;
  @Column('varchar') zip: string;
  @Column('integer') capacity: number;
  @Column('boolean', { default: false }) is_primary: boolean;
  @ManyToOne(() => LocationRow, { nullable: true })
  @JoinColumn({ name: 'location_uuid', referencedColumnName: 'uuid' })
  location: LocationRow | null;
  @OneToMany(() => SectionRow, (s) => s.warehouse) sections: SectionRow[];
  @OneToMany(() => DockRow, (d) => d.warehouse) docks: DockRow[];
}

@Entity('webhook_events')
class OutboxRow {
  @PrimaryGeneratedColumn() id: number;
  @Column('varchar') event_id: string;
  @Column('uuid') company_uuid: string;
  @Column('varchar') name: string;
  @Column('json') payload: unknown;
}

@Entity('api_keys')
class ApiKeyRow {
  @PrimaryGeneratedColumn('uuid') uuid: string;
  @Column('uuid') company_uuid: string;
  @Column('char') key_hash: string;
  @Column('timestamptz', { nullable: true }) revoked_at: Date | null;
}

interface Authed {
  headers: { authorization?: string };
  company: string;
}

@Injectable()
class KeyGuard implements CanActivate {
  private readonly cache = new Map<string, { company: string | null; until: number }>();
  constructor(@InjectRepository(ApiKeyRow) private readonly keys: Repository<ApiKeyRow>) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Authed>();
    const key = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!key) throw new UnauthorizedException();
    let hit = this.cache.get(key);
    if (!hit || hit.until < Date.now()) {
      const hash = createHash('sha256').update(key).digest('hex');
      const row = await this.keys.findOne({ where: { key_hash: hash } });
      hit = { company: row && !row.revoked_at ? row.company_uuid : null, until: Date.now() + 5000 };
      this.cache.set(key, hit);
    }
    if (!hit.company) throw new UnauthorizedException();
    request.company = hit.company;
    return true;
  }
}

// The request decorator, as users write it to reach the guard's company.
const Req = createParamDecorator((_: unknown, context: ExecutionContext) =>
  context.switchToHttp().getRequest<Authed>(),
);

const RELATIONS = { location: true, sections: true, docks: true } as const;
const FIELDS = [
  'location_uuid',
  'name',
  'address',
  'city',
  'state',
  'zip',
  'capacity',
  'is_primary',
] as const;

@Controller('inventory/int/v1/warehouses')
@UseGuards(KeyGuard)
@UseInterceptors(ClassSerializerInterceptor)
class WarehousesController {
  constructor(
    @InjectRepository(WarehouseRow) private readonly warehouses: Repository<WarehouseRow>,
    private readonly dataSource: DataSource,
  ) {}

  @Get()
  async list(@Query() query: Record<string, string>, @Req() request: Authed) {
    const limit = Math.min(100, Number(query.limit ?? 30));
    const page = Math.max(1, Number(query.page ?? 1));
    const [rows, total] = await this.warehouses.findAndCount({
      where: { company_uuid: request.company, ...(query.city ? { city: query.city } : {}) },
      order: query.sort === 'name' ? { name: 'ASC', internalId: 'ASC' } : { created_at: 'DESC' },
      take: limit,
      skip: (page - 1) * limit,
      relations: RELATIONS,
    });
    return {
      warehouses: rows,
      meta: {
        total,
        per_page: limit,
        current_page: page,
        last_page: Math.max(1, Math.ceil(total / limit)),
        from: rows.length ? (page - 1) * limit + 1 : null,
        to: rows.length ? (page - 1) * limit + rows.length : null,
      },
    };
  }

  @Get(':uuid')
  async one(@Param('uuid', ParseUUIDPipe) uuid: string, @Req() request: Authed) {
    return { warehouse: await this.find(uuid, request.company) };
  }

  @Post()
  @HttpCode(201)
  async create(@Body() body: Record<string, any>, @Req() request: Authed) {
    const input = body.warehouse ?? body;
    const uuid = await this.dataSource.transaction(async (manager) => {
      const saved = await manager.save(
        manager.create(WarehouseRow, { ...pick(input), company_uuid: request.company }),
      );
      await manager.save(outbox('warehouse.created', saved, {}));
      return saved.uuid;
    });
    return { warehouse: await this.find(uuid, request.company) };
  }

  @Put(':uuid')
  async update(
    @Param('uuid', ParseUUIDPipe) uuid: string,
    @Body() body: Record<string, any>,
    @Req() request: Authed,
  ) {
    const input = pick(body.warehouse ?? body);
    await this.dataSource.transaction(async (manager) => {
      const row = await manager.findOne(WarehouseRow, {
        where: { uuid, company_uuid: request.company },
        lock: { mode: 'pessimistic_write' },
      });
      if (!row) throw new NotFoundException();
      const changes: Record<string, unknown[]> = {};
      for (const [field, value] of Object.entries(input)) {
        const old = (row as unknown as Record<string, unknown>)[field];
        if (old !== value) changes[field] = [old, value];
      }
      if (!Object.keys(changes).length) return;
      const saved = await manager.save(manager.merge(WarehouseRow, row, input as WarehouseRow));
      await manager.save(outbox('warehouse.updated', saved, { changes }));
    });
    return { warehouse: await this.find(uuid, request.company) };
  }

  private async find(uuid: string, company: string) {
    const row = await this.warehouses.findOne({
      where: { uuid, company_uuid: company },
      relations: RELATIONS,
    });
    if (!row) throw new NotFoundException();
    return row;
  }
}

function pick(input: Record<string, unknown>): Partial<WarehouseRow> {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) if (input[field] !== undefined) out[field] = input[field];
  return out;
}

function outbox(event: string, row: WarehouseRow, additionalData: Record<string, unknown>): OutboxRow {
  const id = `evt_${Date.now().toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;
  const record = { ...row, id: row.uuid } as Record<string, unknown>;
  delete record.internalId;
  return Object.assign(new OutboxRow(), {
    event_id: id,
    company_uuid: row.company_uuid,
    name: event,
    payload: {
      id,
      api_version: 'v1',
      event,
      created_at: new Date().toISOString(),
      data: { ...record, additionalData },
    },
  });
}

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'postgres',
      url: process.env.DATABASE_URL,
      entities: [LocationRow, SectionRow, DockRow, WarehouseRow, OutboxRow, ApiKeyRow],
      extra: { max: 20 },
      logging: false,
    }),
    TypeOrmModule.forFeature([WarehouseRow, ApiKeyRow]),
  ],
  controllers: [WarehousesController],
  providers: [KeyGuard],
})
class PeerModule {}

async function main() {
  const app = await NestFactory.create(PeerModule, new ExpressAdapter(), { logger: ['error'] });
  await app.listen(Number(process.env.PORT ?? 3101), '127.0.0.1');
  process.send?.('ready');
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
