import { createHash, randomBytes } from 'node:crypto';
import Fastify, { FastifyReply, FastifyRequest } from 'fastify';
import { Pool, QueryConfig } from 'pg';

/**
 * The "limit" reference of bench:api: what the routes cost when each is one round trip to PostgreSQL.
 * Plain Fastify + pg, hand-written SQL, no framework. It keeps the api's contract for the routes the
 * bench drives: the same auth (key hash cached 5 s), tenant scoping, JSON shape (`id` = `uuid`, embeds)
 * and outbox guarantee (the event row is written by the same statement as the change, so it commits
 * or rolls back with it). Reads fold the embeds in with correlated `json_agg` sub-selects; writes fold
 * lock, change, read-back, outbox insert and NOTIFY into one statement of data-modifying CTEs.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COLUMNS = ['location_uuid', 'name', 'address', 'city', 'state', 'zip', 'capacity', 'is_primary'];
const REQUIRED = ['name', 'address', 'city', 'state', 'zip', 'capacity'];
const SORTS: Record<string, string> = {
  name: 'w.name ASC, w.id ASC',
  '-name': 'w.name DESC, w.id DESC',
  created_at: 'w.created_at ASC, w.id ASC',
  '-created_at': 'w.created_at DESC, w.id DESC',
};

/** A row's JSON without the internal `id`, with `id` = `uuid` as the api serialises it. */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const record = (alias: string) =>
  `(to_jsonb(${alias}) - 'id' || jsonb_build_object('id', ${alias}.uuid, 'created_at', ${iso(`${alias}.created_at`)}, 'updated_at', ${iso(`${alias}.updated_at`)}))`;

/** The warehouse with its location, sections and docks, all from correlated sub-selects. */
const WAREHOUSE = `${record('w')} || jsonb_build_object(
  'location', (SELECT ${record('l')} FROM locations l WHERE l.uuid = w.location_uuid AND l.company_uuid = w.company_uuid),
  'sections', COALESCE((SELECT jsonb_agg(${record('s')} ORDER BY s.created_at, s.id) FROM warehouse_sections s
                        WHERE s.warehouse_uuid = w.uuid AND s.company_uuid = w.company_uuid), '[]'::jsonb),
  'docks', COALESCE((SELECT jsonb_agg(${record('d')} ORDER BY d.created_at, d.id) FROM warehouse_docks d
                     WHERE d.warehouse_uuid = w.uuid AND d.company_uuid = w.company_uuid), '[]'::jsonb))`;

/** Inserts the envelope of `event` for each row of `source` (columns `j` and `changes`), and wakes the relay. */
const OUTBOX = (source: string, event: string, eventId: string, where = 'true') => `
  ev AS (
    INSERT INTO webhook_events (event_id, company_uuid, name, payload)
    SELECT ${eventId}, (j->>'company_uuid')::uuid, '${event}', json_build_object(
      'id', ${eventId}, 'api_version', 'v1', 'event', '${event}', 'created_at', now(),
      'data', j || jsonb_build_object('additionalData', changes))
    FROM ${source} WHERE ${where}
    RETURNING 1)`;

const eventId = () => `evt_${Date.now().toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;

/** Fixed-shape statements are prepared once per connection (pg keys them by name). */
function named(name: string, text: string, values: unknown[]): QueryConfig {
  return { name, text, values };
}

const keys = new Map<string, { company: string | undefined; until: number }>();
async function company(authorization: string | undefined): Promise<string | undefined> {
  const key = /^Bearer\s+(\S+)$/.exec(authorization ?? '')?.[1];
  if (!key) return undefined;
  const hit = keys.get(key);
  if (hit && hit.until > Date.now()) return hit.company;
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query(
    named('auth', 'SELECT company_uuid FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]),
  );
  const found = rows[0]?.company_uuid as string | undefined;
  keys.set(key, { company: found, until: Date.now() + 5000 });
  return found;
}

const error = (reply: FastifyReply, status: number, detail: string, pointer?: string) =>
  reply.status(status).send({
    errors: [
      {
        status: String(status),
        code: status === 404 ? 'not_found' : 'invalid',
        title: status === 404 ? 'Not found' : 'Unprocessable entity',
        detail,
        ...(pointer ? { source: { pointer } } : {}),
      },
    ],
  });

type Values = Record<string, unknown>;
function values(body: unknown, partial: boolean): Values | string {
  const data = (body as { warehouse?: unknown })?.warehouse ?? body;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'body must be an object';
  const input = data as Values;
  const out: Values = {};
  for (const field of COLUMNS) {
    if (!Object.hasOwn(input, field) || input[field] === undefined) {
      if (!partial && REQUIRED.includes(field)) return `${field} is required`;
      continue;
    }
    out[field] = input[field];
  }
  for (const field of Object.keys(input)) {
    if (
      !COLUMNS.includes(field) &&
      !['uuid', 'id', 'company_uuid', 'created_at', 'updated_at'].includes(field)
    )
      return `${field} is not a field of warehouse`;
  }
  if (out.capacity !== undefined && !Number.isInteger(out.capacity)) return 'capacity must be an integer';
  for (const field of ['name', 'address', 'city', 'state', 'zip'])
    if (out[field] !== undefined && (typeof out[field] !== 'string' || out[field].length > 255))
      return `${field} must be a string of at most 255 characters`;
  return out;
}

app.addHook('onRequest', async (request: FastifyRequest & { company?: string }, reply) => {
  const found = await company(request.headers.authorization);
  if (!found)
    return reply
      .status(401)
      .send({ errors: [{ status: '401', code: 'unauthorized', title: 'Unauthorized', detail: 'bad key' }] });
  request.company = found;
});

type Req = FastifyRequest<{ Params: { uuid: string }; Querystring: Record<string, string> }> & {
  company: string;
};

app.get('/inventory/int/v1/warehouses', async (request: FastifyRequest, reply) => {
  const { query, company: companyUuid } = request as Req;
  const limit = Math.min(100, Math.max(1, Number(query.limit ?? 30)));
  const page = Math.max(1, Number(query.page ?? 1));
  const order = SORTS[query.sort ?? '-created_at'];
  if (!order || !Number.isInteger(limit) || !Number.isInteger(page)) return error(reply, 400, 'bad query');
  const params: unknown[] = [companyUuid, limit, (page - 1) * limit];
  let where = 'w.company_uuid = $1';
  if (query.city !== undefined) {
    params.push(query.city);
    where += ` AND w.city = $${params.length}`;
  }
  // One statement: the page with its embeds, and the filtered total.
  const text = `SELECT (SELECT count(*) FROM warehouses w WHERE ${where}) AS total,
      COALESCE((SELECT jsonb_agg(p.j ORDER BY p.n) FROM (
        SELECT ${WAREHOUSE} AS j, row_number() OVER () AS n FROM (
          SELECT w.* FROM warehouses w WHERE ${where} ORDER BY ${order} LIMIT $2 OFFSET $3) w) p), '[]'::jsonb) AS page`;
  const { rows } = await pool.query(named(`list:${order}:${params.length}`, text, params));
  const total = Number(rows[0].total);
  const records = rows[0].page as unknown[];
  const from = records.length ? (page - 1) * limit + 1 : null;
  return reply.send({
    warehouses: records,
    meta: {
      total,
      per_page: limit,
      current_page: page,
      last_page: Math.max(1, Math.ceil(total / limit)),
      from,
      to: from === null ? null : from + records.length - 1,
    },
  });
});

app.get('/inventory/int/v1/warehouses/:uuid', async (request: FastifyRequest, reply) => {
  const { params, company: companyUuid } = request as Req;
  if (!UUID.test(params.uuid)) return error(reply, 404, 'warehouse not found');
  const { rows } = await pool.query(
    named('one', `SELECT ${WAREHOUSE} AS j FROM warehouses w WHERE w.uuid = $1 AND w.company_uuid = $2`, [
      params.uuid,
      companyUuid,
    ]),
  );
  if (!rows.length) return error(reply, 404, 'warehouse not found');
  return reply.send({ warehouse: rows[0].j });
});

app.post('/inventory/int/v1/warehouses', async (request: FastifyRequest, reply) => {
  const { body, company: companyUuid } = request as Req;
  const data = values(body, false);
  if (typeof data === 'string') return error(reply, 422, data);
  const columns = Object.keys(data);
  const params = [...columns.map((c) => data[c]), companyUuid, eventId()];
  const e = params.length;
  // Insert, read back with embeds (a new record has no children yet), outbox row and NOTIFY: one statement.
  const text = `WITH w AS (
      INSERT INTO warehouses (${[...columns, 'company_uuid'].join(', ')})
      VALUES (${[...columns, 'company_uuid'].map((_, i) => `$${i + 1}`).join(', ')}) RETURNING *),
    rec AS (SELECT ${record('w')} || '{"location": null, "sections": [], "docks": []}'::jsonb AS j,
                   '{}'::jsonb AS changes FROM w),
    ${OUTBOX('rec', 'warehouse.created', `$${e}::text`)}
    SELECT rec.j, (SELECT pg_notify('wharf_webhook_events', '') FROM ev LIMIT 1) FROM rec`;
  const { rows } = await pool.query(named(`post:${columns.join(',')}`, text, params));
  const created = rows[0].j as { location_uuid: string | null };
  if (created.location_uuid) {
    // Only a warehouse created with a location needs its embed read: a second statement in that case.
    const again = await pool.query(
      named('one', `SELECT ${WAREHOUSE} AS j FROM warehouses w WHERE w.uuid = $1 AND w.company_uuid = $2`, [
        (created as unknown as { uuid: string }).uuid,
        companyUuid,
      ]),
    );
    return reply.status(201).send({ warehouse: again.rows[0].j });
  }
  return reply.status(201).send({ warehouse: created });
});

async function update(request: FastifyRequest, reply: FastifyReply) {
  const { body, params: path, company: companyUuid } = request as Req;
  if (!UUID.test(path.uuid)) return error(reply, 404, 'warehouse not found');
  const data = values(body, true);
  if (typeof data === 'string') return error(reply, 422, data);
  const columns = Object.keys(data);
  const params = [...columns.map((c) => data[c]), path.uuid, companyUuid, eventId()];
  const [u, c, e] = [params.length - 2, params.length - 1, params.length];
  const changed = columns.map((col) => `o.${col} IS DISTINCT FROM n.${col}`).join(' OR ') || 'false';
  const changes = columns.length
    ? `jsonb_strip_nulls(jsonb_build_object(${columns
        .map(
          (col) =>
            `'${col}', CASE WHEN o.${col} IS DISTINCT FROM n.${col} THEN jsonb_build_array(o.${col}, n.${col}) END`,
        )
        .join(', ')}))`
    : `'{}'::jsonb`;
  // Lock the old row, update only when something changes, read back with embeds, write the
  // `.updated` event with its changes only when there are some: one statement.
  const text = `WITH o AS (SELECT * FROM warehouses WHERE uuid = $${u} AND company_uuid = $${c} FOR UPDATE),
    n AS (SELECT o.id, ${columns.map((col, i) => `$${i + 1}::${columnType(col)} AS ${col}`).join(', ') || 'NULL AS none'} FROM o),
    upd AS (
      UPDATE warehouses w SET ${[...columns.map((col) => `${col} = n.${col}`), 'updated_at = now()'].join(', ')}
      FROM o, n WHERE w.id = o.id AND (${changed}) RETURNING w.*),
    rec AS (
      SELECT (SELECT ${WAREHOUSE} FROM (SELECT * FROM upd UNION ALL SELECT * FROM o WHERE NOT EXISTS (SELECT 1 FROM upd)) w) AS j,
             ${changes} AS changes, EXISTS (SELECT 1 FROM upd) AS changed
      FROM o, n),
    ${OUTBOX('rec', 'warehouse.updated', `$${e}::text`, 'changed')}
    SELECT rec.j, (SELECT pg_notify('wharf_webhook_events', '') FROM ev LIMIT 1) FROM rec`;
  const { rows } = await pool.query(named(`put:${columns.join(',')}`, text, params));
  if (!rows.length) return error(reply, 404, 'warehouse not found');
  return reply.send({ warehouse: rows[0].j });
}

function columnType(column: string): string {
  if (column === 'capacity') return 'integer';
  if (column === 'is_primary') return 'boolean';
  if (column === 'location_uuid') return 'uuid';
  return 'varchar';
}

app.put('/inventory/int/v1/warehouses/:uuid', update);
app.patch('/inventory/int/v1/warehouses/:uuid', update);

app.listen({ port: Number(process.env.PORT ?? 3100), host: '127.0.0.1' }).then(
  () => process.send?.('ready'),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
