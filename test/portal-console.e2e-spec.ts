import { mkdirSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { ARTIFACTS, CHROMIUM, chromiumSuite } from './support/chromium';
import { http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';
import { FAST_WEBHOOKS, warehouse } from './support/webhooks';
import { startWorker } from './support/worker';

const suite = chromiumSuite('portal browser test');
const LOG_ROUTE = '/int/v1/webhook-request-logs';

/** The platform's own app, on another origin: a page that frames the portal URL and sizes the frame. */
function hostApp(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const src = new URL(request.url ?? '/', 'http://host').searchParams.get('src') ?? '';
    const attribute = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Platform app</title></head><body>
<h1>Developers › Webhooks</h1>
<iframe id="portal" title="Webhooks portal" src="${attribute}" style="width: 100%; height: 700px; border: 0"></iframe>
<script>
  window.portalMessages = [];
  addEventListener('message', (event) => {
    window.portalMessages.push({ origin: event.origin, data: event.data });
    if (event.data && event.data.type === 'wharf:portal')
      document.getElementById('portal').style.height = event.data.height + 'px';
  });
</script></body></html>`);
  });
  // localhost: another site than the api's 127.0.0.1, so the frame is a third-party context.
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://localhost:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

suite('the console as an embedded company portal, live, in Chromium', () => {
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: Receiver;
  let host: { server: Server; origin: string };
  let acme: TestCompany;
  let globex: TestCompany;
  let browser: Browser;
  const logs: string[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    host = await hostApp();
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString());
        done();
      },
    });
    api = await startApi({
      env: { ...FAST_WEBHOOKS, LOG_LEVEL: 'debug', PORTAL_FRAME_ANCESTORS: host.origin },
      logDestination: destination,
    });
    worker = await startWorker(api.config);
    receiver = await new Receiver().start();
    acme = await createCompany(api, 'Portal Acme');
    globex = await createCompany(api, 'Portal Globex');
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        // The frame in the page's own process: this Chromium's out-of-process frames break Playwright's
        // element geometry ("Object not disposable"). Origins, cookies, storage and CSP apply the same.
        '--disable-features=IsolateOrigins,site-per-process',
        '--disable-site-isolation-trials',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.close();
    await receiver?.stop();
    await new Promise((resolve) => host?.server.close(resolve));
    await api?.close();
  });

  async function portalUrl(company: TestCompany, body: Record<string, unknown> = {}): Promise<string> {
    const res = await http(api.url, 'POST', '/int/v1/portal-sessions', { key: company.key, body });
    expect(res.status).toBe(201);
    tokens.push(res.body.portal_session.token);
    return res.body.portal_session.url;
  }

  /** A fresh browser (own cookies) on the host app framing `url`; the frame's console errors are collected. */
  async function embed(url: string, width = 1280) {
    const context: BrowserContext = await browser.newContext({ viewport: { width, height: 900 } });
    const page: Page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
    const requests: { url: string; at: number }[] = [];
    page.on('request', (request) => requests.push({ url: request.url(), at: Date.now() }));
    await page.goto(`${host.origin}/?src=${encodeURIComponent(url)}`);
    const frame: FrameLocator = page.frameLocator('#portal');
    const handle = (): Frame => page.frames().find((f) => f.url().startsWith(api.url))!;
    return { context, page, frame, handle, errors, requests };
  }

  it('signs in as the company from the link: lists, creates, tests, and the new row arrives live, without polling', async () => {
    const existing = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: `${receiver.url}/existing`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const url = await portalUrl(acme, { return_url: `${host.origin}/settings` });
    const { context, page, frame, handle, errors, requests } = await embed(url);
    try {
      await frame.getByRole('link', { name: existing.url }).waitFor();
      expect(await frame.locator('.topbar strong').textContent()).toBe('Portal Acme');
      await frame.getByRole('link', { name: '← Back' }).waitFor();
      expect(await frame.getByRole('link', { name: 'API keys' }).count()).toBe(0);

      await frame.getByRole('button', { name: 'Add endpoint' }).click();
      await frame.getByLabel('Endpoint URL').fill(`${receiver.url}/portal-hook`);
      await frame.getByRole('button', { name: 'Create endpoint' }).click();
      await frame.getByRole('link', { name: 'Open the endpoint' }).click();
      await frame.getByRole('heading', { name: `${receiver.url}/portal-hook` }).waitFor();
      await frame.getByText('No deliveries yet.').waitFor();
      const loaded = Date.now();

      const sent = Date.now();
      await frame.getByRole('button', { name: 'Send test event' }).click();
      await frame.locator('tr.row', { hasText: 'order.updated' }).waitFor({ timeout: 2_000 });
      expect(Date.now() - sent).toBeLessThan(2_000);
      // A delivery the worker makes arrives the same way.
      await http(api.url, 'POST', '/inventory/int/v1/warehouses', {
        key: acme.key,
        body: warehouse('Portal'),
      });
      await frame.locator('tr.row', { hasText: 'warehouse.created' }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: join(ARTIFACTS, 'portal-endpoint.png'), fullPage: true });

      const stream = requests.filter((r) => r.url === `${api.url}/int/v1/webhook-activity/stream`);
      expect(stream).toHaveLength(1);
      expect(requests.filter((r) => r.at >= loaded && r.url.startsWith(`${api.url}${LOG_ROUTE}`))).toEqual(
        [],
      );
      // The link's token: off the address bar, and in no storage of the frame's.
      const frameState = await handle().evaluate(() => {
        const w = globalThis as any;
        return {
          href: w.location.href as string,
          local: JSON.stringify({ ...w.localStorage }),
          session: JSON.stringify({ ...w.sessionStorage }),
          cookie: w.document.cookie as string,
        };
      });
      expect(frameState.href).toMatch(/\/console\/#\/webhooks\/[0-9a-f-]{36}$/);
      for (const value of Object.values(frameState))
        for (const token of tokens) expect(value).not.toContain(token);
      expect(frameState.cookie).toBe('');
      // The host page was told the route and the height (and nothing else).
      const messages = await page.evaluate(
        () => (globalThis as any).portalMessages as { origin: string; data: any }[],
      );
      expect(messages.length).toBeGreaterThan(1);
      expect(messages.every((m) => m.origin === api.url && m.data.type === 'wharf:portal')).toBe(true);
      expect(
        messages.some(
          (m) => m.data.event === 'navigate' && /^#\/webhooks\/[0-9a-f-]{36}$/.test(m.data.route),
        ),
      ).toBe(true);
      expect(JSON.stringify(messages)).not.toContain('portal_token');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps a read-only session’s write buttons away, and its writes answer 403', async () => {
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: `${receiver.url}/read-only`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const { context, frame, handle } = await embed(await portalUrl(acme, { read_only: true }));
    try {
      await frame.getByRole('link', { name: endpoint.url }).waitFor();
      await frame.getByText('read-only').first().waitFor();
      expect(await frame.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
      await frame.getByRole('link', { name: endpoint.url }).click();
      await frame.getByRole('heading', { name: endpoint.url }).waitFor();
      await frame.getByRole('button', { name: 'Reveal', exact: true }).waitFor();
      for (const name of [
        'Send test event',
        'Disable endpoint',
        'Rotate',
        'Save filter',
        'Save delivery settings',
        'Recover',
      ])
        expect({ name, count: await frame.getByRole('button', { name, exact: true }).count() }).toEqual({
          name,
          count: 0,
        });
      const statuses = await handle().evaluate(async (uuid) => {
        const call = (method: string, path: string, body?: unknown) =>
          fetch(path, {
            method,
            headers: {
              'x-wharf-portal': '1',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          }).then((r) => r.status);
        return [
          await call('GET', `/int/v1/webhook-endpoints/${uuid}`),
          await call('POST', `/int/v1/webhook-endpoints/${uuid}/disable`),
          await call('POST', `/int/v1/webhook-endpoints/${uuid}/test`, {}),
          await call('DELETE', `/int/v1/webhook-endpoints/${uuid}`),
        ];
      }, endpoint.uuid);
      expect(statuses).toEqual([200, 403, 403, 403]);
    } finally {
      await context.close();
    }
  });

  it('shows the sign-in page to an expired or revoked session, and 404s another company’s endpoint', async () => {
    const theirs = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: globex.key,
        body: { webhook_endpoint: { url: `${receiver.url}/globex`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const opened = await http(api.url, 'POST', '/int/v1/portal-sessions', { key: acme.key, body: {} });
    tokens.push(opened.body.portal_session.token);
    const { context, page, frame, handle } = await embed(opened.body.portal_session.url);
    try {
      await frame.getByRole('heading', { name: 'Webhooks' }).waitFor();
      const status = await handle().evaluate(
        (uuid) => fetch(`/int/v1/webhook-endpoints/${uuid}`).then((r) => r.status),
        theirs.uuid,
      );
      expect(status).toBe(404);
      await http(api.url, 'DELETE', `/int/v1/portal-sessions/${opened.body.portal_session.uuid}`, {
        key: acme.key,
      });
      await page.reload();
      await frame.getByTestId('signed-out-notice').waitFor();
      expect(await frame.getByLabel('API key').count()).toBe(1);
    } finally {
      await context.close();
    }
    const expired = await http(api.url, 'POST', '/int/v1/portal-sessions', { key: acme.key, body: {} });
    tokens.push(expired.body.portal_session.token);
    await api.app
      .get(DataSource)
      .query(`UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE uuid = $1`, [
        expired.body.portal_session.uuid,
      ]);
    const late = await embed(expired.body.portal_session.url);
    try {
      await late.frame
        .getByTestId('signed-out-notice')
        .getByText(/expired/)
        .waitFor();
    } finally {
      await late.context.close();
    }
  });

  it('shows the event catalog with each event’s schema and example, and sends one as a test', async () => {
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: acme.key,
        body: { webhook_endpoint: { url: `${receiver.url}/catalog`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const { context, frame } = await embed(await portalUrl(acme));
    try {
      await frame.getByRole('link', { name: 'Event catalog' }).click();
      const panel = frame.getByRole('region', { name: 'warehouse.created' });
      await panel.waitFor();
      await panel.getByText('Example', { exact: true }).click();
      const example = JSON.parse((await panel.getByTestId('example-warehouse.created').textContent())!);
      expect(JSON.stringify(example)).toContain('warehouse.created');
      await panel.getByText('JSON Schema', { exact: true }).click();
      expect(await panel.locator('details pre').nth(1).textContent()).toContain('"properties"');
      await panel.getByLabel('Send as a test to').selectOption(endpoint.uuid);
      await panel.getByRole('button', { name: 'Send this as a test' }).click();
      await panel.getByTestId('catalog-test-result').getByText('200').waitFor();
      const sent = receiver.requests
        .filter((r) => r.path === '/catalog')
        .map((r) => JSON.parse(r.body).event);
      expect(sent).toEqual(['warehouse.created']);
    } finally {
      await context.close();
    }
  });

  it('may be framed only by the pages of PORTAL_FRAME_ANCESTORS', async () => {
    const served = await fetch(`${api.url}/console/`);
    expect(served.headers.get('content-security-policy')).toBe(`frame-ancestors ${host.origin}`);
    // The same host app on an origin not listed: the browser refuses to show the console in its frame.
    const other = await hostApp();
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      const blocked = other.origin.replace('localhost', '127.0.0.1');
      const framed = page.waitForEvent('framenavigated', (f) => f !== page.mainFrame());
      await page.goto(`${blocked}/?src=${encodeURIComponent(await portalUrl(acme))}`);
      expect((await framed).url()).toMatch(/^chrome-error:/);
    } finally {
      await context.close();
      await new Promise((resolve) => other.server.close(resolve));
    }
  });

  it('charts the counts the request log holds for a seeded hour', async () => {
    const company = await createCompany(api, 'Portal Chart');
    const endpoint = (
      await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
        key: company.key,
        body: { webhook_endpoint: { url: `${receiver.url}/chart`, events: ['*'] } },
      })
    ).body.webhook_endpoint;
    const hour = Math.floor(Date.now() / 3600_000) * 3600_000;
    await api.app.get(DataSource).query(
      `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, url,
         request_headers, request_body, duration_ms, status, sent_at)
       SELECT $1, $2, 'evt_seeded', 'order.updated', a, 'https://example.com', '{}', '{}', 5, s, to_timestamp($3 / 1000.0)
       FROM (VALUES (1, 'successful'), (1, 'successful'), (2, 'successful'), (1, 'failed'), (3, 'failed')) v(a, s)`,
      [company.uuid, endpoint.uuid, hour],
    );
    const { context, page, frame } = await embed(await portalUrl(company));
    try {
      const chart = frame.getByTestId('activity-chart');
      await chart.waitFor();
      expect(await frame.getByTestId('total-successful').textContent()).toBe('3');
      expect(await frame.getByTestId('total-retrying').textContent()).toBe('1');
      expect(await frame.getByTestId('total-failed').textContent()).toBe('1');
      const bucket = chart.locator(`g.bucket[data-at="${new Date(hour).toISOString()}"]`);
      expect(await bucket.getAttribute('data-successful')).toBe('3');
      expect(await bucket.getAttribute('data-retrying')).toBe('1');
      expect(await bucket.getAttribute('data-failed')).toBe('1');
      await page.screenshot({ path: join(ARTIFACTS, 'portal-chart.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('fits 360 px in the frame', async () => {
    const { context, frame, handle } = await embed(await portalUrl(acme), 380);
    try {
      await frame.getByRole('heading', { name: 'Webhooks' }).waitFor();
      await frame.getByTestId('activity-chart').waitFor();
      const [scroll, client] = await handle().evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return [root.scrollWidth as number, root.clientWidth as number];
      });
      expect(scroll).toBeLessThanOrEqual(client);
    } finally {
      await context.close();
    }
  });

  it('creates an API key on the API-keys page of a full session; it works, and once revoked it is a 401', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await page.goto(`${api.url}/console/`);
      await page.getByLabel('API key').fill(acme.key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill('from the console');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.getByTestId('new-api-key').textContent())!;
      expect(key).toMatch(/^wharf_live_/);
      const warehouses = () => http(api.url, 'GET', '/inventory/int/v1/warehouses', { key });
      expect((await warehouses()).status).toBe(200);
      const row = page.locator('tr', { hasText: 'from the console' });
      await row.getByRole('button', { name: 'Revoke' }).click();
      await row.getByRole('button', { name: 'Yes, revoke' }).click();
      await row.getByText('revoked').waitFor();
      expect((await warehouses()).status).toBe(401);
    } finally {
      await context.close();
    }
  });

  it('wrote no link token to the api’s logs or the request log', async () => {
    const text = logs.join('');
    expect(text).toContain('POST /int/v1/portal-sessions/exchange 200');
    expect(tokens.length).toBeGreaterThan(4);
    for (const token of tokens) expect(text).not.toContain(token.slice('wharf_portal_'.length));
    const [row] = await api.app.get(DataSource).query(
      `SELECT count(*)::int AS leaked FROM webhook_request_logs l CROSS JOIN unnest($1::text[]) t
       WHERE l.request_body LIKE '%' || t || '%' OR l.url LIKE '%' || t || '%' OR l.request_headers::text LIKE '%' || t || '%'`,
      [tokens],
    );
    expect(row.leaked).toBe(0);
  });
});
