import { existsSync, mkdirSync, readFileSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Params, ResourceRegistry, pageStatement, parseListQuery } from '@wharf/core';
import { DataSource } from 'typeorm';
import { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import { WebhookRequestLog } from '../request-logs/webhook-request-log.entity';
import {
  EVENTS,
  REQUEST_LOGS,
  defaultPartition,
  partitionName,
} from '../stages/lifecycle/partitioned-tables';
import { forValues } from '../stages/lifecycle/partitions';
import { outboxOfStatement } from './outbox.sql';
import * as partitions from './partitions.sql';
import { STORE_STATEMENTS } from './statements';

const DIR = join(__dirname, 'snapshots');
const UPDATE = process.env.UPDATE_SQL_SNAPSHOTS === '1';
const file = (name: string) => join(DIR, `${name}.sql`);
/** The snapshot of a statement: its exact text, then a newline. */
const snapshot = (sql: string) => `${sql.trim()}\n`;
/** Statements run one after the other, as one snapshot. */
const inTurn = (...statements: string[]) => statements.join(';\n');

/** The statements built per table, partition or write, from examples. */
function builtStatements(): Record<string, string> {
  const at = Date.UTC(2025, 0, 2);
  const name = partitionName(EVENTS, at);
  const fallback = defaultPartition(EVENTS);
  const outbox = outboxOfStatement({
    prefix: 'w_',
    source: 'w',
    id: '$1',
    company: '$2',
    name: `'warehouse.updated'`,
    createdAt: '$3',
    additionalData: `'{"changes":' || w."changes"::text || '}'`,
    notify: '$4',
  });
  return {
    'write-statement-outbox': [...outbox.with, ...outbox.select].join(',\n'),
    'partition-create': partitions.createDetached(EVENTS, name),
    'partition-attach': partitions.attachPartition(EVENTS, name, forValues(EVENTS, { from: at, to: at + 1 })),
    'partition-default': partitions.createDefault(REQUEST_LOGS, defaultPartition(REQUEST_LOGS)),
    'partition-holds-range': partitions.holdsRange(EVENTS, fallback, EVENTS.bound(at), EVENTS.bound(at + 1)),
    'partition-lock': partitions.lockWithPartition(EVENTS, name),
    'partition-drop': inTurn(partitions.detachPartition(EVENTS, name), partitions.dropTable(name)),
    'partition-queued-in': partitions.queuedIn(name),
    'partition-queued-of': partitions.queuedOf(fallback),
    'default-older-than': partitions.anyWhere(fallback, partitions.olderThan(EVENTS, at)),
    'default-event-ids': partitions.eventIdsWhere(fallback, partitions.olderThan(EVENTS, at)),
    'default-rotate': inTurn(
      partitions.detachPartition(EVENTS, fallback),
      partitions.renameTable(fallback, `${fallback}_rotated`),
      partitions.createDefault(EVENTS, fallback, true),
      partitions.reinsertKept(
        EVENTS,
        '<columns>',
        `${fallback}_rotated`,
        `NOT (o.event_id = ANY($1::text[]))`,
      ),
      partitions.dropTable(`${fallback}_rotated`),
    ),
    'partition-archive': partitions.archiveBatch(
      { table: fallback, key: 'event_id', keyType: 'text', where: partitions.EVENTS_NAMED },
      '$2',
      1000,
    ),
  };
}

/**
 * The request log's list page, as the resource layer builds it from WebhookRequestLog's definition (the
 * kernel's generic statement over the table the store names): the first page, and one filtered by endpoint
 * and status.
 */
async function requestLogPages(): Promise<Record<string, string>> {
  const dataSource = new DataSource({ type: 'postgres', entities: [WebhookRequestLog, WebhookEndpoint] });
  await (dataSource as unknown as { buildMetadatas(): Promise<void> }).buildMetadatas();
  const def = new ResourceRegistry(dataSource).forEntity(WebhookRequestLog);
  const page = (query: Record<string, unknown>) => {
    const params = new Params();
    return pageStatement(def, '<company>', parseListQuery(query, def, params), params, 26);
  };
  return {
    'request-log-page': page({}),
    'request-log-page-filtered': page({
      webhook_endpoint_uuid: '0b7f3c7e-2b44-4c3e-8d1a-7a6f0e9c2d22',
      status: 'failed',
    }),
  };
}

describe("the store's SQL, as snapshots a reviewer reads", () => {
  let built: Record<string, string>;
  const stale = () =>
    readdirSync(DIR).filter((name) => {
      const statement = name.replace(/\.sql$/, '');
      return !(statement in STORE_STATEMENTS) && !(statement in built);
    });

  beforeAll(async () => {
    built = { ...builtStatements(), ...(await requestLogPages()) };
    if (!UPDATE) return;
    mkdirSync(DIR, { recursive: true });
    for (const name of stale()) unlinkSync(join(DIR, name));
    for (const [name, sql] of Object.entries({ ...STORE_STATEMENTS, ...built }))
      writeFileSync(file(name), snapshot(sql));
  });

  it.each(Object.entries(STORE_STATEMENTS))('%s matches snapshots/%s.sql', (name, sql) => {
    expect(existsSync(file(name))).toBe(true);
    // Run `npm run sql:snapshots` after changing a statement, and review the diff of its snapshot.
    expect(readFileSync(file(name), 'utf8')).toBe(snapshot(sql));
  });

  it('matches the snapshots of the statements built from examples', () => {
    const differing = Object.entries(built).filter(
      ([name, sql]) => !existsSync(file(name)) || readFileSync(file(name), 'utf8') !== snapshot(sql),
    );
    expect(differing.map(([name]) => name)).toEqual([]);
  });

  it('registers every fixed statement of the store (an exported string that is a whole statement)', async () => {
    const registered = new Set(Object.values(STORE_STATEMENTS));
    const modules = readdirSync(__dirname).filter((name) => name.endsWith('.sql.ts'));
    const exported = (await Promise.all(modules.map((name) => import(join(__dirname, name))))).flatMap(
      (module: Record<string, unknown>) => Object.entries(module),
    );
    const statements = exported.filter(
      ([, value]) => typeof value === 'string' && /^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)\b/i.test(value),
    );
    expect(statements.filter(([, sql]) => !registered.has(sql as string)).map(([name]) => name)).toEqual([]);
    expect(statements.length).toBe(registered.size);
  });

  it('has no snapshot of a statement that is gone', () => {
    expect(stale()).toEqual([]);
  });
});
