import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'pg';

/**
 * The physical limit the api is measured against: plain Fastify + pg, hand-written SQL, the same JSON
 * and the same auth check (one indexed key-hash lookup per request), for the routes the bench drives.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

const W = `uuid, company_uuid, created_at, updated_at, location_uuid, name, address, city, state, zip, capacity, is_primary`;
const L = `uuid, company_uuid, created_at, updated_at, name, street, city, state, zip, country, latitude, longitude`;
const S = `uuid, company_uuid, created_at, updated_at, warehouse_uuid, name, description`;
const D = `uuid, company_uuid, created_at, updated_at, warehouse_uuid, dock_number, direction, capacity, status`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIELDS = ['name', 'address', 'city', 'state', 'zip', 'capacity', 'is_primary', 'location_uuid'];

async function company(authorization: string | undefined): Promise<string | undefined> {
  const key = /^Bearer\s+(\S+)$/.exec(authorization ?? '')?.[1];
  if (!key) return undefined;
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query(
    'SELECT company_uuid FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [hash],
  );
  return rows[0]?.company_uuid;
}

async function embed(rows: any[], companyUuid: string) {
  if (!rows.length) return rows;
  const uuids = rows.map((r) => r.uuid);
  const locationUuids = [...new Set(rows.map((r) => r.location_uuid).filter(Boolean))];
  const [locations, sections, docks] = await Promise.all([
    locationUuids.length
      ? pool.query(`SELECT ${L} FROM locations WHERE uuid = ANY($1) AND company_uuid = $2`, [
          locationUuids,
          companyUuid,
        ])
      : { rows: [] as any[] },
    pool.query(
      `SELECT ${S} FROM warehouse_sections WHERE warehouse_uuid = ANY($1) AND company_uuid = $2 ORDER BY created_at, id`,
      [uuids, companyUuid],
    ),
    pool.query(
      `SELECT ${D} FROM warehouse_docks WHERE warehouse_uuid = ANY($1) AND company_uuid = $2 ORDER BY created_at, id`,
      [uuids, companyUuid],
    ),
  ]);
  const byLocation = new Map(locations.rows.map((l: any) => [l.uuid, l]));
  const group = (list: any[]) => {
    const map = new Map<string, any[]>();
    for (const item of list) map.set(item.warehouse_uuid, [...(map.get(item.warehouse_uuid) ?? []), item]);
    return map;
  };
  const bySection = group(sections.rows);
  const byDock = group(docks.rows);
  return rows.map((r) => ({
    ...r,
    location: byLocation.get(r.location_uuid) ?? null,
    sections: bySection.get(r.uuid) ?? [],
    docks: byDock.get(r.uuid) ?? [],
  }));
}

function invalid(reply: any, detail: string) {
  return reply
    .status(422)
    .send({ errors: [{ status: '422', code: 'invalid', title: 'Unprocessable entity', detail }] });
}

function values(body: any, partial: boolean): Record<string, unknown> | string {
  const data = body?.warehouse ?? body;
  if (!data || typeof data !== 'object') return 'body must be an object';
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (data[field] === undefined) {
      if (!partial && !['is_primary', 'location_uuid'].includes(field)) return `${field} is required`;
      continue;
    }
    out[field] = data[field];
  }
  if (out.capacity !== undefined && !Number.isInteger(out.capacity)) return 'capacity must be an integer';
  return out;
}

app.addHook('onRequest', async (request, reply) => {
  const companyUuid = await company(request.headers.authorization);
  if (!companyUuid)
    return reply
      .status(401)
      .send({ errors: [{ status: '401', code: 'unauthorized', title: 'Unauthorized', detail: 'bad key' }] });
  (request as any).company = companyUuid;
});

app.get('/inventory/int/v1/warehouses', async (request: any) => {
  const q = request.query;
  const limit = Math.min(100, Number(q.limit ?? 30));
  const params: unknown[] = [request.company];
  let where = 'company_uuid = $1';
  if (q.city) {
    params.push(q.city);
    where += ` AND city = $${params.length}`;
  }
  const order = q.sort === 'name' ? 'name ASC, id ASC' : 'created_at DESC, id DESC';
  params.push(limit);
  const { rows } = await pool.query(
    `SELECT ${W}, count(*) OVER() AS __total FROM warehouses WHERE ${where} ORDER BY ${order} LIMIT $${params.length} OFFSET 0`,
    params,
  );
  const total = rows.length ? Number(rows[0].__total) : 0;
  for (const row of rows) delete row.__total;
  const records = await embed(rows, request.company);
  return {
    warehouses: records,
    meta: {
      total,
      per_page: limit,
      current_page: 1,
      last_page: Math.max(1, Math.ceil(total / limit)),
      from: records.length ? 1 : null,
      to: records.length || null,
    },
  };
});

app.get('/inventory/int/v1/warehouses/:uuid', async (request: any, reply) => {
  if (!UUID.test(request.params.uuid))
    return reply.status(404).send({ errors: [{ status: '404', detail: 'not found' }] });
  const { rows } = await pool.query(`SELECT ${W} FROM warehouses WHERE uuid = $1 AND company_uuid = $2`, [
    request.params.uuid,
    request.company,
  ]);
  if (!rows.length) return reply.status(404).send({ errors: [{ status: '404', detail: 'not found' }] });
  return { warehouse: (await embed(rows, request.company))[0] };
});

app.post('/inventory/int/v1/warehouses', async (request: any, reply) => {
  const data = values(request.body, false);
  if (typeof data === 'string') return invalid(reply, data);
  const columns = Object.keys(data);
  const { rows } = await pool.query(
    `INSERT INTO warehouses (${[...columns, 'company_uuid'].join(', ')}) VALUES (${[...columns, 'company_uuid'].map((_, i) => `$${i + 1}`).join(', ')}) RETURNING ${W}`,
    [...columns.map((c) => data[c]), request.company],
  );
  return reply.status(201).send({ warehouse: (await embed(rows, request.company))[0] });
});

app.put('/inventory/int/v1/warehouses/:uuid', async (request: any, reply) => {
  const data = values(request.body, true);
  if (typeof data === 'string') return invalid(reply, data);
  const columns = Object.keys(data);
  const { rows } = await pool.query(
    `UPDATE warehouses SET ${[...columns.map((c, i) => `${c} = $${i + 1}`), 'updated_at = now()'].join(', ')}
     WHERE uuid = $${columns.length + 1} AND company_uuid = $${columns.length + 2} RETURNING ${W}`,
    [...columns.map((c) => data[c]), request.params.uuid, request.company],
  );
  if (!rows.length) return reply.status(404).send({ errors: [{ status: '404', detail: 'not found' }] });
  return { warehouse: (await embed(rows, request.company))[0] };
});

app.listen({ port: Number(process.env.PORT ?? 3100), host: '127.0.0.1' }).then(
  () => process.send?.('ready'),
  (error) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
