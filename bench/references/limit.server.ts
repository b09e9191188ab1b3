import { createHash, randomBytes } from 'node:crypto';
import Fastify, { FastifyReply, FastifyRequest } from 'fastify';
import { Pool, QueryConfig } from 'pg';

/**
 * The "limit" reference of bench:api: the fastest way to serve the routes the bench drives. Plain Fastify +
 * pg, hand-written SQL, no framework; one prepared statement per route, and PostgreSQL builds the whole
 * response as JSON text that Node hands to the socket without parsing it. It keeps the api's contract: the
 * same auth (key hash cached 5 s), tenant scoping, JSON document (`id` = `uuid`, key order, embeds, the list's
 * `meta` with its capped count and keyset cursor) and outbox guarantee: a write builds its webhook envelope,
 * queues it for the relay and NOTIFYs in the statement that makes the change, so they commit together.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = 'application/json; charset=utf-8';
const COLUMNS = ['location_uuid', 'name', 'address', 'city', 'state', 'zip', 'capacity', 'is_primary'];
const REQUIRED = ['name', 'address', 'city', 'state', 'zip', 'capacity'];
const EXACT_TOTAL = 10_000;
const SORTS: Record<string, { order: string; key: string }> = {
  name: { order: 'w.name ASC, w.id ASC', key: 'name' },
  '-name': { order: 'w.name DESC, w.id DESC', key: 'name' },
  created_at: { order: 'w.created_at ASC, w.id ASC', key: 'created_at' },
  '-created_at': { order: 'w.created_at DESC, w.id DESC', key: 'created_at' },
};

type Kind = 'uuid' | 'uuid?' | 'text' | 'text?' | 'int' | 'int?' | 'bool' | 'time' | 'float?';
const BASE: [string, Kind][] = [
  ['uuid', 'uuid'],
  ['company_uuid', 'uuid'],
  ['created_at', 'time'],
  ['updated_at', 'time'],
];
const TABLES: Record<string, [string, Kind][]> = {
  warehouses: [
    ...BASE,
    ['location_uuid', 'uuid?'],
    ['name', 'text'],
    ['address', 'text'],
    ['city', 'text'],
    ['state', 'text'],
    ['zip', 'text'],
    ['capacity', 'int'],
    ['is_primary', 'bool'],
  ],
  locations: [
    ...BASE,
    ['name', 'text'],
    ...['street', 'city', 'state', 'zip', 'country'].map((c): [string, Kind] => [c, 'text?']),
    ['latitude', 'float?'],
    ['longitude', 'float?'],
  ],
  warehouse_sections: [...BASE, ['warehouse_uuid', 'uuid'], ['name', 'text'], ['description', 'text?']],
  warehouse_docks: [
    ...BASE,
    ['warehouse_uuid', 'uuid'],
    ['dock_number', 'text'],
    ['direction', 'text'],
    ['capacity', 'int?'],
    ['status', 'text'],
  ],
};

/** A column as compact JSON text (what JSON.stringify writes). */
function value(ref: string, kind: Kind): string {
  const nullable = kind.endsWith('?');
  const text = {
    uuid: `'"' || ${ref}::text || '"'`,
    text: `to_json(${ref})::text`,
    int: `${ref}::text`,
    bool: `${ref}::text`,
    time: `'"' || to_char(${ref} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'`,
    float: `to_json(${ref})::text`,
  }[kind.replace('?', '') as 'uuid'];
  return nullable ? `COALESCE(${text}, 'null')` : text;
}

/** A row as compact JSON text, `id` (= `uuid`) first, then the columns in declaration order. */
const record = (table: string, alias: string, tail = '') =>
  `'{"id":"' || ${alias}.uuid::text || '"' || ${TABLES[table]
    .map(([column, kind]) => `',"${column}":' || ${value(`${alias}.${column}`, kind)}`)
    .join(' || ')}${tail} || '}'`;

const children = (table: string, alias: string) =>
  `COALESCE((SELECT '[' || string_agg(${record(table, alias)}, ',' ORDER BY ${alias}.created_at, ${alias}.id) || ']'
     FROM ${table} ${alias} WHERE ${alias}.warehouse_uuid = w.uuid AND ${alias}.company_uuid = w.company_uuid), '[]')`;

/** The warehouse with its location, sections and docks, all from correlated sub-selects. */
const WAREHOUSE = record(
  'warehouses',
  'w',
  ` || ',"location":' || COALESCE((SELECT ${record('locations', 'l')} FROM locations l
      WHERE l.uuid = w.location_uuid AND l.company_uuid = w.company_uuid), 'null')
    || ',"sections":' || ${children('warehouse_sections', 's')} || ',"docks":' || ${children('warehouse_docks', 'd')}`,
);

/**
 * The `.created`/`.updated` envelope of each row of `source` (columns `j`: the record's text, `changes`: the
 * additionalData text), inserted, queued for the relay and NOTIFYed; `pass` keeps only rows that changed.
 */
const OUTBOX = (source: string, event: string, eventId: string, pass = 'true') => `
  ev AS (
    INSERT INTO webhook_events (event_id, company_uuid, name, payload)
    SELECT ${eventId}, $company::uuid, '${event}', ('{"id":"' || ${eventId} || '","api_version":"v1","event":"${event}","created_at":"'
      || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","data":'
      || left(${source}.j, -1) || ',"additionalData":' || ${source}.changes || '}}')::json
    FROM ${source} WHERE ${pass}
    RETURNING id, event_id),
  queued AS (INSERT INTO webhook_events_undispatched (id, event_id) SELECT id, event_id FROM ev)`;
const NOTIFY = `(SELECT pg_notify('wharf_webhook_events', '') FROM ev LIMIT 1)`;

const eventId = () => `evt_${Date.now().toString(36).padStart(9, '0')}${randomBytes(10).toString('hex')}`;

/** Statements are prepared once per connection (pg keys them by name); `$company` names the company's parameter. */
function named(name: string, text: string, values: unknown[]): QueryConfig {
  return { name, text: text.replace(/\$company/g, `$${values.length}`), values };
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

const error = (reply: FastifyReply, status: number, detail: string) =>
  reply.status(status).send({
    errors: [
      {
        status: String(status),
        code: status === 404 ? 'not_found' : 'invalid',
        title: status === 404 ? 'Not found' : 'Unprocessable entity',
        detail,
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

/** The one text column of a statement's one row, sent as it is. */
async function answer(reply: FastifyReply, query: QueryConfig, status = 200) {
  const { rows } = await pool.query(query);
  if (!rows.length) return error(reply, 404, 'warehouse not found');
  return reply
    .status(status)
    .type(JSON_TYPE)
    .send(rows[0].j as string);
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
  const limit = Number(query.limit ?? 30);
  const page = Number(query.page ?? 1);
  const sort = query.sort ?? '-created_at';
  const by = SORTS[sort];
  if (!by || !Number.isInteger(limit) || limit < 1 || limit > 100 || !Number.isInteger(page) || page < 1)
    return error(reply, 400, 'bad query');
  const params: unknown[] = [limit, (page - 1) * limit, sort];
  let where = 'w.company_uuid = $company';
  if (query.city !== undefined) {
    params.push(query.city);
    where += ` AND w.city = $${params.length}`;
  }
  params.push(companyUuid);
  // The page and one row past it (is there a next page?), the count capped as the api caps it, and `meta`
  // with the keyset cursor after the page's last row: one statement, the whole response.
  const cursor = (key: string) =>
    `translate(encode(convert_to('{"s":' || to_json($3::text)::text || ',"v":[' || ${value(`p.${key}`, key === 'name' ? 'text' : 'time')}
       || '],"u":"' || p.uuid::text || '"}', 'UTF8'), 'base64'), E'+/=\\n', '-_')`;
  const text = `WITH p AS (
      SELECT w.*, row_number() OVER () AS n FROM (
        SELECT w.* FROM warehouses w WHERE ${where} ORDER BY ${by.order} LIMIT $1::int + 1 OFFSET $2::int) w),
    c AS (SELECT count(*) AS total FROM (SELECT 1 FROM warehouses w WHERE ${where} LIMIT ${EXACT_TOTAL + 1}) c),
    m AS (SELECT c.total, c.total <= ${EXACT_TOTAL} AS exact, (SELECT count(*) FROM p WHERE p.n <= $1::int) AS shown,
                 EXISTS (SELECT 1 FROM p WHERE p.n > $1::int) AS more FROM c),
    t AS (SELECT m.*, CASE WHEN m.exact THEN m.total ELSE greatest(${EXACT_TOTAL}, $2::int + m.shown + m.more::int) END AS shown_total FROM m)
    SELECT '{"warehouses":' || COALESCE((SELECT '[' || string_agg(${WAREHOUSE}, ',' ORDER BY w.n) || ']' FROM p w WHERE w.n <= $1::int), '[]')
      || ',"meta":{"total":' || t.shown_total || ',"total_exact":' || (t.exact OR (NOT t.more AND t.shown > 0))::text
      || ',"per_page":' || $1::int || ',"current_page":' || ($2::int / $1::int + 1) || ',"last_page":' || greatest(1, ceil(t.shown_total::numeric / $1::int))
      || ',"from":' || CASE WHEN t.shown > 0 THEN ($2::int + 1)::text ELSE 'null' END
      || ',"to":' || CASE WHEN t.shown > 0 THEN ($2::int + t.shown)::text ELSE 'null' END
      || ',"next_cursor":' || CASE WHEN t.more THEN '"' || (SELECT ${cursor(by.key)} FROM p WHERE p.n = $1::int) || '"' ELSE 'null' END
      || '}}' AS j FROM t`;
  return answer(reply, named(`list:${sort}:${params.length}`, text, params));
});

app.get('/inventory/int/v1/warehouses/:uuid', async (request: FastifyRequest, reply) => {
  const { params, company: companyUuid } = request as Req;
  if (!UUID.test(params.uuid)) return error(reply, 404, 'warehouse not found');
  const text = `SELECT '{"warehouse":' || ${WAREHOUSE} || '}' AS j FROM warehouses w WHERE w.uuid = $1 AND w.company_uuid = $company`;
  return answer(reply, named('one', text, [params.uuid, companyUuid]));
});

app.post('/inventory/int/v1/warehouses', async (request: FastifyRequest, reply) => {
  const { body, company: companyUuid } = request as Req;
  const data = values(body, false);
  if (typeof data === 'string') return error(reply, 422, data);
  const columns = Object.keys(data);
  const params = [...columns.map((c) => data[c]), eventId(), companyUuid];
  const e = `$${params.length - 1}::text`;
  // Insert, read back with embeds (a new record's children are none; its location is read), the outbox
  // row, its place in the relay's queue and NOTIFY: one statement.
  const text = `WITH w AS (
      INSERT INTO warehouses (${[...columns, 'company_uuid'].join(', ')})
      VALUES (${[...columns.map((_, i) => `$${i + 1}`), '$company'].join(', ')}) RETURNING *),
    rec AS (SELECT ${record(
      'warehouses',
      'w',
      ` || ',"location":' || COALESCE((SELECT ${record('locations', 'l')} FROM locations l
          WHERE l.uuid = w.location_uuid AND l.company_uuid = w.company_uuid), 'null') || ',"sections":[],"docks":[]'`,
    )} AS j, '{}' AS changes FROM w),
    ${OUTBOX('rec', 'warehouse.created', e)}
    SELECT '{"warehouse":' || rec.j || '}' AS j, ${NOTIFY} FROM rec`;
  return answer(reply, named(`post:${columns.join(',')}`, text, params), 201);
});

async function update(request: FastifyRequest, reply: FastifyReply) {
  const { body, params: path, company: companyUuid } = request as Req;
  if (!UUID.test(path.uuid)) return error(reply, 404, 'warehouse not found');
  const data = values(body, true);
  if (typeof data === 'string') return error(reply, 422, data);
  const columns = Object.keys(data);
  const params = [...columns.map((c) => data[c]), path.uuid, eventId(), companyUuid];
  const [u, e] = [`$${params.length - 2}`, `$${params.length - 1}::text`];
  const changed = columns.map((col) => `o.${col} IS DISTINCT FROM n.${col}`).join(' OR ') || 'false';
  const kind = (col: string) => TABLES.warehouses.find(([c]) => c === col)![1];
  const changes = columns.length
    ? `'{"changes":{' || concat_ws(',', ${columns
        .map(
          (col) =>
            `CASE WHEN o.${col} IS DISTINCT FROM n.${col} THEN '"${col}":[' || ${value(`o.${col}`, kind(col))} || ',' || ${value(`n.${col}`, kind(col))} || ']' END`,
        )
        .join(', ')}) || '}}'`
    : `'{}'`;
  // Lock the old row, update only when something changes, read back with embeds, write the `.updated`
  // event with its changes only when there are some: one statement.
  const text = `WITH o AS (SELECT * FROM warehouses WHERE uuid = ${u} AND company_uuid = $company FOR UPDATE),
    n AS (SELECT o.id, ${columns.map((col, i) => `$${i + 1}::${columnType(col)} AS ${col}`).join(', ') || 'NULL AS none'} FROM o),
    upd AS (
      UPDATE warehouses w SET ${[...columns.map((col) => `${col} = n.${col}`), 'updated_at = now()'].join(', ')}
      FROM o, n WHERE w.id = o.id AND (${changed}) RETURNING w.*),
    rec AS (
      SELECT (SELECT ${WAREHOUSE} FROM (SELECT * FROM upd UNION ALL SELECT * FROM o WHERE NOT EXISTS (SELECT 1 FROM upd)) w) AS j,
             ${changes} AS changes, EXISTS (SELECT 1 FROM upd) AS changed
      FROM o, n),
    ${OUTBOX('rec', 'warehouse.updated', e, 'changed')}
    SELECT '{"warehouse":' || rec.j || '}' AS j, ${NOTIFY} FROM rec`;
  return answer(reply, named(`put:${columns.join(',')}`, text, params));
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
