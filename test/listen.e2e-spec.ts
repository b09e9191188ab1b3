import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { AccountsService } from '@wharf/accounts';
import { createRedis } from '@wharf/core';
import { ListenSessionReaper } from '@wharf/webhooks/worker';
import { Webhook } from 'standardwebhooks';
import { createCompany, TestCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { freePort } from './support/ports';
import { CLI, ROOT, Spawned, assertBuilt, runNode } from './support/processes';
import { Received, Receiver } from './support/receiver';
import { TcpProxy } from './support/tcp-proxy';
import { startApi, TestApi } from './support/test-app';
import { createEndpoint, FAST_WEBHOOKS, sql, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const W = '/inventory/int/v1/warehouses';
const O = '/fleet/int/v1/orders';

/** The lines a listener printed for one event: what came, and what the receiver answered. */
const forwarded = (event: string, id: string, url: string, status: number) => [
  `--> ${event} [${id}]`,
  expect.stringMatching(
    new RegExp(`^<-- \\[${status}\\] POST ${url.replace(/[.?]/g, '\\$&')} \\(\\d+ ms\\)$`),
  ),
];

/**
 * `wharf listen` and `wharf trigger`, the built CLI as child processes against a real api and worker: a
 * listen session is an endpoint of type listen whose deliveries stream to the CLI, which forwards them to a
 * local receiver with their signature and posts the receiver's answer back to the request log.
 */
describe('wharf listen and wharf trigger', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let acme: TestCompany;
  let receiver: Receiver;
  /** Between the CLI and the api: cut to break the stream. */
  let proxy: TcpProxy;
  const running: Spawned[] = [];

  const call = (method: string, path: string, body?: unknown, key = acme.key) =>
    http(api.url, method, path, { key, body });

  /** Starts `wharf <args>` through the proxy; resolves with the run once it printed its signing secret. */
  async function listen(args: string[], key = acme.key): Promise<{ run: Spawned; secret: string }> {
    const run = runNode(
      CLI,
      ['listen', ...args, '--api', `http://127.0.0.1:${proxy.port}`, '--key', key],
      {},
    );
    running.push(run);
    const secret = await eventually(
      async () => /signing secret is (whsec_\S+)/.exec(run.output())?.[1],
      30_000,
    );
    return { run, secret };
  }

  const lines = (run: Spawned) => run.output().split('\n');

  /** The requests on `path` verified with `secret` (standardwebhooks throws on a bad signature). */
  function verified(path: string, secret: string): { id: string; event: any; request: Received }[] {
    const hook = new Webhook(secret);
    return receiver.requests
      .filter((request) => request.path === path)
      .map((request) => ({
        id: request.headers['webhook-id'] as string,
        event: hook.verify(request.body, request.headers as Record<string, string>) as any,
        request,
      }));
  }

  /** The listen session endpoints of the company. */
  async function sessions(): Promise<any[]> {
    return (await call('GET', '/int/v1/webhook-endpoints?type=listen')).body.webhook_endpoints;
  }

  beforeAll(async () => {
    assertBuilt();
    api = await startApi({
      env: {
        ...FAST_WEBHOOKS,
        // Room for the round trip through the CLI on a loaded machine, and for retries across a cut stream.
        WEBHOOKS_TIMEOUT_MS: '10000',
        WEBHOOKS_RETRY_SCHEDULE: '1s,2s,5s,10s,20s',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    worker = await startWorker(api.config);
    acme = await createCompany(api, 'Listen Co');
    receiver = await new Receiver().start();
    receiver.respond = () => ({ status: 201, body: 'got it' });
    proxy = await new TcpProxy(Number(new URL(api.url).port)).start();
  }, 120_000);

  afterAll(async () => {
    for (const run of running) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await proxy?.stop();
    await receiver?.stop();
    await worker?.close();
    await api?.close();
  });

  it('forwards every event of --events signed with the printed secret, prints a line per event and answer, and logs the answer', async () => {
    const url = `${receiver.url}/webhook`;
    const { run, secret } = await listen([
      '--forward-to',
      url,
      '--events',
      'order.created,warehouse.created',
    ]);
    const [session] = await sessions();
    expect(session).toMatchObject({ type: 'listen', url, events: ['order.created', 'warehouse.created'] });

    const first = (await call('POST', W, warehouse('Rotterdam North'))).body.warehouse;
    // warehouse.updated is not among --events: the routing below shows it was never sent to the session.
    await call('PATCH', `${W}/${first.uuid}`, { capacity: 20 });
    await call('POST', W, warehouse('Delft'));
    await call('POST', O, { order: { reference: 'PO-1' } });
    await call('POST', O, { order: { reference: 'PO-2' } });

    const got = await eventually(async () => {
      const list = verified('/webhook', secret);
      return list.length >= 4 && list;
    }, 60_000);
    const events = (await call('GET', '/int/v1/events?event_in=order.created,warehouse.created')).body.events;
    expect(got.map(({ id }) => id).sort()).toEqual(events.map((event: any) => event.id).sort());
    expect(got.map(({ event }) => event.event).sort()).toEqual([
      'order.created',
      'order.created',
      'warehouse.created',
      'warehouse.created',
    ]);

    const updated = (await call('GET', '/int/v1/events?event=warehouse.updated')).body.events[0];
    const routing = await eventually(async () => {
      const answer = await call('GET', `/int/v1/events/${updated.id}/routing`);
      const route = answer.body.routing?.find((entry: any) => entry.webhook_endpoint_uuid === session.uuid);
      return route && route.reason !== 'not_fanned_out_yet' && route;
    });
    expect(routing).toMatchObject({ delivery: null, reason: 'event_not_subscribed' });

    // One line per event and one per answer, as `stripe listen` prints them.
    await eventually(async () => lines(run).filter((line) => line.startsWith('<-- ')).length >= 4);
    for (const { id, event } of got)
      expect(lines(run)).toEqual(expect.arrayContaining(forwarded(event.event, id, url, 201)));
    expect(run.output().match(/whsec_/g)).toHaveLength(1);

    // The receiver's answer is each attempt's response in the request log.
    const logs = await eventually(async () => {
      const rows = (await call('GET', `/int/v1/webhook-request-logs?webhook_endpoint_uuid=${session.uuid}`))
        .body.webhook_request_logs;
      return rows?.length === 4 && rows;
    });
    for (const row of logs)
      expect(row).toMatchObject({ url, status: 'successful', response_status: 201, response_body: 'got it' });
    expect(logs.map((row: any) => row.event_id).sort()).toEqual(got.map(({ id }) => id).sort());
  }, 120_000);

  it('resumes a cut stream where it left off: no event missing or doubled', async () => {
    const url = `${receiver.url}/resumed`;
    const { run, secret } = await listen(['--forward-to', url, '--events', 'warehouse.created']);
    const create = (name: string) => call('POST', W, warehouse(name));
    await create('Before 1');
    await eventually(async () => verified('/resumed', secret).length === 1, 30_000);

    proxy.cut();
    for (let i = 1; i <= 5; i++) await create(`During ${i}`);
    await eventually(async () => /Stream lost/.test(run.output()));
    proxy.restore();
    for (let i = 1; i <= 5; i++) await create(`After ${i}`);

    const names = await eventually(async () => {
      const list = verified('/resumed', secret);
      return list.length >= 11 && list.map(({ event }) => event.data.name);
    }, 90_000);
    // A sentinel after everything else: once it is in, every earlier event had its chance to come twice.
    await create('Sentinel');
    await eventually(async () =>
      verified('/resumed', secret).some(({ event }) => event.data.name === 'Sentinel'),
    );
    const all = verified('/resumed', secret);
    expect(all).toHaveLength(12);
    expect(new Set(all.map(({ id }) => id)).size).toBe(12);
    expect(names.sort()).toEqual(
      ['Before 1', ...[1, 2, 3, 4, 5].flatMap((i) => [`During ${i}`, `After ${i}`])].sort(),
    );
    // The stream itself resumed after the last event the CLI got: each event came down it once (a stream
    // that started over would print a repeat, which the CLI answers without forwarding it again).
    const arrived = await eventually(async () => {
      const printed = lines(run).filter((line) => line.startsWith('--> '));
      return printed.length >= all.length && printed;
    });
    expect(arrived.sort()).toEqual(all.map(({ id }) => `--> warehouse.created [${id}]`).sort());
    expect(run.output()).not.toContain('repeat of an acknowledged event');
    expect(run.output()).toMatch(/Stream lost \(.+\); resuming…\n/);
    expect(run.output()).toContain('Stream resumed.');
    // Resumed from the stream, not made up by retries: one attempt per event in the log, each a success.
    const [session] = (await sessions()).filter((endpoint) => endpoint.url === url);
    // The sentinel's answer is recorded after the receiver has it: wait for its row.
    const logs = await eventually(async () => {
      const rows = (
        await call('GET', `/int/v1/webhook-request-logs?webhook_endpoint_uuid=${session.uuid}&limit=100`)
      ).body.webhook_request_logs;
      return rows.length >= all.length && rows;
    });
    expect(logs.map((row: any) => [row.event_id, row.status, row.response_status]).sort()).toEqual(
      all.map(({ id }) => [id, 'successful', 201]).sort(),
    );
  }, 180_000);

  it('sends --payload thin deliveries as an endpoint does', async () => {
    const url = `${receiver.url}/thin`;
    const { secret } = await listen([
      '--forward-to',
      url,
      '--events',
      'warehouse.created',
      '--payload',
      'thin',
    ]);
    const created = (await call('POST', W, warehouse('Thin'))).body.warehouse;
    const { event } = await eventually(
      async () => verified('/thin', secret).find(({ event }) => event.data.id === created.uuid),
      60_000,
    );
    expect(event.data).toEqual({
      id: created.uuid,
      object: 'warehouse',
      href: expect.stringMatching(new RegExp(`/inventory/int/v1/warehouses/${created.uuid}$`)),
      additionalData: {},
    });
  }, 90_000);

  it('wharf trigger sends the catalog example, or --data, to the sessions and endpoints subscribed to it', async () => {
    const url = `${receiver.url}/triggered`;
    const { run, secret } = await listen(['--forward-to', url, '--events', 'order.created']);
    const { secret: hookSecret } = await createEndpoint(api, acme, `${receiver.url}/hook`, ['order.created']);
    await createEndpoint(api, acme, `${receiver.url}/other`, ['warehouse.deleted']);
    // Its filter refuses the catalog's example and takes the --data below: sent to as the fan-out would.
    const filtered = await call('POST', '/int/v1/webhook-endpoints', {
      webhook_endpoint: {
        url: `${receiver.url}/filtered`,
        events: ['order.created'],
        filter: { 'data.reference': 'PO-77' },
      },
    });
    expect(filtered.status).toBe(201);
    const trigger = async (...args: string[]) => {
      const triggered = runNode(
        CLI,
        ['trigger', ...args, '--api', `http://127.0.0.1:${proxy.port}`, '--key', acme.key],
        {},
      );
      running.push(triggered);
      expect({ code: (await triggered.exited).code, output: triggered.output() }).toEqual({
        code: 0,
        output: expect.stringMatching(/^Triggered /),
      });
      return triggered.output();
    };

    const output = await trigger('order.created');
    const id = /^Triggered order\.created \[(evt_\w+)\]: sent to (\d+) endpoints$/m.exec(output);
    expect(id).not.toBeNull();
    const eventId = id![1];
    // Every session and endpoint subscribed to order.created in the company: this one, the endpoint, and
    // the sessions of the earlier cases that take order.created (the first one's).
    const sent = output.split('\n').filter((line) => line.startsWith('  ['));
    expect(sent).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^  \\[201\\] ${url} \\(\\d+ ms\\)$`)),
        expect.stringMatching(new RegExp(`^  \\[201\\] ${receiver.url}/hook \\(\\d+ ms\\)$`)),
      ]),
    );
    expect(sent.some((line) => line.includes('/other'))).toBe(false);
    expect(sent.some((line) => line.includes('/filtered'))).toBe(false);
    const [viaSession] = verified('/triggered', secret);
    expect(viaSession.id).toBe(eventId);
    expect(viaSession.event).toMatchObject({ event: 'order.created', data: { id: expect.any(String) } });
    expect(verified('/hook', hookSecret).map(({ id }) => id)).toEqual([eventId]);
    expect(lines(run)).toEqual(expect.arrayContaining(forwarded('order.created', eventId, url, 201)));

    const dir = mkdtempSync(join(tmpdir(), 'wharf-trigger-'));
    try {
      const file = join(dir, 'order.json');
      writeFileSync(file, JSON.stringify({ id: 'a1b2', reference: 'PO-77', status: 'created' }));
      const withData = await trigger('order.created', '--data', file);
      const second = /\[(evt_\w+)\]/.exec(withData)![1];
      const event = verified('/triggered', secret).find(({ id }) => id === second)!.event;
      expect(event.data).toMatchObject({ id: 'a1b2', reference: 'PO-77', status: 'created' });
      expect(withData).toMatch(new RegExp(`^  \\[201\\] ${receiver.url}/filtered \\(\\d+ ms\\)$`, 'm'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // Logged as test sends, with the session's answer.
    const logs = (await call('GET', `/int/v1/webhook-request-logs?event_id=${eventId}`)).body
      .webhook_request_logs;
    expect(logs.find((row: any) => row.url === url)).toMatchObject({ test: true, response_status: 201 });

    const unknown = runNode(CLI, ['trigger', 'order.exploded', '--api', api.url, '--key', acme.key], {});
    expect((await unknown.exited).code).toBe(1);
    expect(unknown.output()).toMatch(/^wharf: the api answered 404: "order\.exploded" is not an event/);
  }, 120_000);

  it('runs the receiver of docs/local-development.md: what it verifies is what the session forwards', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'local-development.md'), 'utf8');
    const code = /```js receiver\n([\s\S]*?)```/.exec(doc)![1];
    expect(code.trim().split('\n')).toHaveLength(5);
    const dir = mkdtempSync(join(tmpdir(), 'wharf-receiver-'));
    const port = await freePort();
    try {
      writeFileSync(join(dir, 'receiver.js'), code);
      const { run, secret } = await listen([
        '--forward-to',
        `http://127.0.0.1:${port}/webhook`,
        '--events',
        'warehouse.deleted',
      ]);
      const received = runNode(join(dir, 'receiver.js'), [], {
        WEBHOOK_SECRET: secret,
        PORT: String(port),
        NODE_PATH: join(ROOT, 'node_modules'),
      });
      running.push(received);
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' })).status === 400,
      );
      const created = (await call('POST', W, warehouse('Short-lived'))).body.warehouse;
      await call('DELETE', `${W}/${created.uuid}`);
      await eventually(async () => received.output().includes('verified warehouse.deleted'), 60_000);
      const [deleted] = (await call('GET', '/int/v1/events?event=warehouse.deleted')).body.events;
      const expected = forwarded('warehouse.deleted', deleted.id, `http://127.0.0.1:${port}/webhook`, 200);
      // The CLI prints the answer once it has it, just after the receiver printed what it verified.
      await eventually(async () => lines(run).some((line) => expected[1].asymmetricMatch(line)));
      expect(lines(run)).toEqual(expect.arrayContaining(expected));
      // The log's time is the receiver's, as the CLI measured and printed it.
      const printed = Number(
        /\((\d+) ms\)$/.exec(lines(run).find((line) => expected[1].asymmetricMatch(line))!)![1],
      );
      const [row] = await eventually(async () => {
        const rows = (await call('GET', `/int/v1/webhook-request-logs?event_id=${deleted.id}`)).body
          .webhook_request_logs;
        return rows.length && rows;
      });
      expect(row).toMatchObject({ response_status: 200, duration_ms: printed });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('deletes a session whose stream has been gone for the grace period; one whose stream is open stays', async () => {
    const abandonedUrl = `${receiver.url}/abandoned`;
    const { run } = await listen(['--forward-to', abandonedUrl]);
    await listen(['--forward-to', `${receiver.url}/kept`]);
    const abandoned = (await sessions()).find((endpoint) => endpoint.url === abandonedUrl);
    // Killed: it ends nothing itself.
    run.child.kill('SIGKILL');
    await run.exited;
    expect((await sessions()).map((endpoint) => endpoint.uuid)).toContain(abandoned.uuid);
    // The grace period passing, in place of waiting 10 minutes: the session's alive mark expires.
    const redis = createRedis(api.config);
    await redis.del(`${api.config.queuePrefix}:listen:${abandoned.uuid}:alive`);
    redis.disconnect();
    const before = (await sessions()).length;
    // A session opened within the grace period stays, marked alive or not (its CLI may still be connecting).
    expect(await worker.get(ListenSessionReaper).reap()).toBe(0);
    expect((await sessions()).map((endpoint) => endpoint.uuid)).toContain(abandoned.uuid);
    await sql(
      api,
      "UPDATE webhook_endpoints SET created_at = now() - interval '11 minutes' WHERE uuid = $1",
      [abandoned.uuid],
    );
    expect(await worker.get(ListenSessionReaper).reap()).toBe(1);
    const after = await sessions();
    expect(after).toHaveLength(before - 1);
    expect(after.map((endpoint) => endpoint.uuid)).not.toContain(abandoned.uuid);
  }, 60_000);

  it('a session deleted elsewhere (its endpoint, from the console) ends the stream, and the CLI says so', async () => {
    const url = `${receiver.url}/deleted`;
    const { run } = await listen(['--forward-to', url]);
    const session = (await sessions()).find((endpoint) => endpoint.url === url);
    expect((await call('DELETE', `/int/v1/webhook-endpoints/${session.uuid}`)).status).toBe(200);
    // Noticed at the stream's next heartbeat (15 s at most).
    const { code } = await run.exited;
    expect({ code, last: lines(run).filter(Boolean).at(-1) }).toEqual({
      code: 1,
      last: `wharf: the api answered 404: No listen session with uuid "${session.uuid}".`,
    });
  }, 60_000);

  it('^C ends the session: its endpoint is gone', async () => {
    const { run } = await listen(['--forward-to', `${receiver.url}/ended`]);
    const before = (await sessions()).length;
    run.child.kill('SIGINT');
    expect((await run.exited).code).toBe(0);
    expect(run.output()).toContain('Session ended.');
    expect((await sessions()).length).toBe(before - 1);
  }, 60_000);

  it('needs webhooks.listen:open, and the read of the events it subscribes to', async () => {
    const accounts = api.app.get(AccountsService);
    const keyWith = async (permissions: string[]) =>
      (await accounts.createApiKey(acme.uuid, 'listen', false, permissions)).key;
    const attempt = async (key: string, events: string) => {
      const run = runNode(
        CLI,
        ['listen', '--forward-to', `${receiver.url}/x`, '--events', events, '--api', api.url, '--key', key],
        {},
      );
      return { code: (await run.exited).code, output: run.output() };
    };
    const before = (await sessions()).length;
    expect(await attempt(await keyWith(['inventory.warehouses:read']), 'warehouse.created')).toEqual({
      code: 1,
      output: expect.stringContaining('webhooks.listen:open'),
    });
    expect(await attempt(await keyWith(['webhooks.listen:open']), 'warehouse.created')).toEqual({
      code: 1,
      output: expect.stringContaining('inventory.warehouses:read'),
    });
    expect((await sessions()).length).toBe(before);
  }, 60_000);
});
