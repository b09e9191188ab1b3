import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { TestCompany, createCompany } from './support/accounts';
import { ARTIFACTS, CHROMIUM, chromiumSuite } from './support/chromium';
import { http } from './support/http';
import { Receiver } from './support/receiver';
import { TestApi, startApi } from './support/test-app';

const suite = chromiumSuite('console layout test');

/** A phone (390 × 844) and a laptop. */
const WIDTHS = [390, 1280];
const TIME = /^\d{1,2}:\d{2}( ?[AP]M)?$/;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * What is wider than the screen: the page itself, and every element that scrolls sideways (overflow-x
 * auto or scroll) with more content than its width.
 */
function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as any).document;
    const width = (globalThis as any).innerWidth as number;
    const found: string[] = [];
    if (doc.scrollingElement.scrollWidth > width) found.push(`page: ${doc.scrollingElement.scrollWidth}`);
    for (const el of doc.querySelectorAll('body *')) {
      const overflow = (globalThis as any).getComputedStyle(el).overflowX as string;
      if ((overflow === 'auto' || overflow === 'scroll') && el.scrollWidth > el.clientWidth)
        found.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`);
    }
    return found;
  });
}

async function boxOf(locator: Locator): Promise<Box> {
  await locator.waitFor();
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  return box!;
}

/** The element lies wholly within the screen's width (shown without scrolling sideways). */
async function expectOnScreen(locator: Locator, width: number): Promise<void> {
  const box = await boxOf(locator);
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(width);
}

suite('console: layouts at 390 and 1280 px, in Chromium', () => {
  let api: TestApi;
  let receiver: Receiver;
  let company: TestCompany;
  let browser: Browser;
  const endpoints: Record<'failing' | 'ok', { uuid: string; url: string }> = {} as never;

  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    api = await startApi();
    receiver = await new Receiver().start();
    receiver.respond = (request) =>
      request.path.includes('failing')
        ? { status: 500, body: 'The receiver is down for maintenance.' }
        : { status: 200, body: 'ok' };
    company = await createCompany(api, 'Layout Co');
    const create = async (path: string, events: string[]) =>
      (
        await http(api.url, 'POST', '/int/v1/webhook-endpoints', {
          key: company.key,
          body: { webhook_endpoint: { url: `${receiver.url}${path}`, events, description: 'Orders' } },
        })
      ).body.webhook_endpoint;
    // Created first: the catalog's default target is the newest endpoint, the one that answers 200.
    endpoints.failing = await create('/hooks/failing/a-rather-long-path-of-the-receiver', ['*']);
    endpoints.ok = await create('/hooks/ok', [
      'warehouse.created',
      'warehouse.updated',
      'warehouse.deleted',
      'warehouse_dock.created',
    ]);
    for (const endpoint of [endpoints.failing, endpoints.ok])
      await http(api.url, 'POST', `/int/v1/webhook-endpoints/${endpoint.uuid}/test`, {
        key: company.key,
        body: { event: 'warehouse.created' },
      });
    await http(api.url, 'POST', `/int/v1/webhook-endpoints/${endpoints.failing.uuid}/disable`, {
      key: company.key,
    });
    // Deliveries of the last hours for the chart and the log: answered, refused, timed out.
    await api.app.get(DataSource).query(
      `INSERT INTO webhook_request_logs (company_uuid, webhook_endpoint_uuid, event_id, event, attempt, url,
         request_headers, request_body, response_status, response_body, duration_ms, error, status, sent_at)
       SELECT $1, $2, 'evt_seeded_' || h, 'warehouse.updated', a, $3, '{"content-type":"application/json"}',
         '{"event":"warehouse.updated"}', r, 'ok', d, e, s, now() - make_interval(hours => h)
       FROM generate_series(1, 20) h,
         (VALUES (1, 200, 41, NULL, 'successful'), (1, NULL, 1000, 'Timed out after 1000 ms without an answer.', 'failed'),
                 (2, 503, 12, NULL, 'failed')) v(a, r, d, e, s)
       WHERE h % 3 <> 0 OR s = 'successful'`,
      [company.uuid, endpoints.ok.uuid, endpoints.ok.url],
    );
    await http(api.url, 'POST', '/int/v1/api-keys', {
      key: company.key,
      body: { api_key: { name: 'deploy pipeline (production)' } },
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await api?.close();
  });

  /** A fresh browser (own session) at `width`, signed in as the company, on the endpoints list. */
  async function signedIn(width: number): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(`${api.url}/console/`);
    await page.getByLabel('API key').fill(company.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    return page;
  }

  describe.each(WIDTHS)('at %i px', (width) => {
    let page: Page;
    beforeEach(async () => (page = await signedIn(width)));
    afterEach(async () => page?.context().close());

    it('sends a catalog event as a test to the first endpoint without one picked by hand', async () => {
      // The endpoints arrive after the catalog is shown, as on a slow connection.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding = 0;
      await page.route('**/int/v1/webhook-endpoints?*', async (route) => {
        holding++;
        await held;
        await route.continue();
      });
      await page.getByRole('link', { name: 'Event catalog' }).click();
      const panel = page.getByRole('region', { name: 'warehouse.created' });
      await panel.waitFor();
      expect(holding).toBe(1);
      release();
      const target = panel.getByLabel('Send as a test to');
      const send = panel.getByRole('button', { name: 'Send this as a test' });
      // The list has arrived once its options are there; the select shows one of them at that render.
      await target.locator('option', { hasText: endpoints.ok.url }).waitFor({ state: 'attached' });
      expect(await target.inputValue()).toBe(endpoints.ok.uuid);
      expect(await send.isEnabled()).toBe(true);
      const before = receiver.requests.length;
      await send.click();
      await panel.getByTestId('catalog-test-result').getByText('200').waitFor();
      const sent = receiver.requests.slice(before).map((r) => [r.path, JSON.parse(r.body).event]);
      expect(sent).toEqual([['/hooks/ok', 'warehouse.created']]);
      expect(await sidewaysScroll(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `console-catalog-${width}.png`) });
    });

    it("shows every endpoint's status, verification and success rate on screen", async () => {
      for (const endpoint of [endpoints.ok, endpoints.failing]) {
        const row = page.locator('table.endpoints tbody tr', { hasText: endpoint.url });
        await expectOnScreen(row.getByRole('link', { name: endpoint.url }), width);
        await expectOnScreen(row.locator('.badge').first(), width);
        await expectOnScreen(row.getByText(/verified/), width);
        await expectOnScreen(row.getByText(/% of|no deliveries/), width);
      }
      const badge = (url: string) =>
        page.locator('table.endpoints tbody tr', { hasText: url }).locator('.badge').first();
      expect(await badge(endpoints.ok.url).textContent()).toBe('enabled');
      expect(await badge(endpoints.failing.url).textContent()).toBe('disabled');
      expect(await sidewaysScroll(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `console-endpoints-${width}.png`), fullPage: true });
    });

    it('labels the activity chart with times', async () => {
      const chart = page.getByTestId('activity-chart');
      await chart.waitFor();
      const ticks = page.getByTestId('activity-axis').locator('.tick:visible');
      await ticks.first().waitFor();
      const labels = await ticks.allTextContents();
      expect(labels.length).toBeGreaterThanOrEqual(3);
      for (const label of labels) expect(label.trim()).toMatch(TIME);
      let right = -1;
      for (const tick of await ticks.all()) {
        const box = await boxOf(tick);
        expect(box.x).toBeGreaterThan(right);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        right = box.x + box.width;
      }
      const bars = await boxOf(chart);
      const axis = await boxOf(page.getByTestId('activity-axis'));
      expect(axis.y).toBeGreaterThanOrEqual(bars.y + bars.height - 1);
    });

    it("shows each delivery's result and duration on screen; an opened row is no wider than the screen", async () => {
      await page.goto(`${api.url}/console/#/webhooks/${endpoints.ok.uuid}`);
      const rows = page.locator('tr.row');
      await rows.first().waitFor();
      for (const row of [rows.first(), rows.nth(1), rows.nth(2)]) {
        await expectOnScreen(row.locator('.badge.successful, .badge.failed'), width);
        await expectOnScreen(row.getByText(/^\d+ ms$/), width);
        await expectOnScreen(row.getByRole('button'), width);
      }
      expect(await sidewaysScroll(page)).toEqual([]);
      await page
        .getByRole('region', { name: 'Delivery log' })
        .evaluate((panel) => (panel as unknown as { scrollIntoView(): void }).scrollIntoView());
      await page.screenshot({ path: join(ARTIFACTS, `console-delivery-log-${width}.png`) });

      const timedOut = page.locator('tr.row.failed', { hasText: 'Timed out' }).first();
      await expectOnScreen(timedOut.locator('.badge.failed'), width);
      await expectOnScreen(timedOut.getByText('Timed out after 1000 ms without an answer.'), width);
      await timedOut.getByRole('button').click();
      const detail = page.getByTestId('log-detail');
      await expectOnScreen(detail, width);
      await expectOnScreen(detail.getByText(/No response/), width);
      await expectOnScreen(detail.getByRole('button', { name: 'Resend' }), width);
      expect(await sidewaysScroll(page)).toEqual([]);
      await detail.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, `console-log-detail-${width}.png`) });
    });

    it('shows the revoke button of each key on screen, and a gap between the name input and its button', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      const row = page.locator('table.keys tbody tr', { hasText: 'deploy pipeline (production)' });
      await expectOnScreen(row.getByRole('button', { name: 'Revoke' }), width);
      await expectOnScreen(row.getByText(/…/), width);
      const input = await boxOf(page.getByLabel('Name'));
      const button = await boxOf(page.getByRole('button', { name: 'Create key' }));
      const sideBySide = button.y < input.y + input.height;
      const gap = sideBySide ? button.x - (input.x + input.width) : button.y - (input.y + input.height);
      expect(gap).toBeGreaterThanOrEqual(4);
      expect(await sidewaysScroll(page)).toEqual([]);
      await row.getByRole('button', { name: 'Revoke' }).click();
      await expectOnScreen(row.getByRole('button', { name: 'Yes, revoke' }), width);
      await expectOnScreen(row.getByRole('button', { name: 'Cancel' }), width);
      expect(await sidewaysScroll(page)).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, `console-keys-${width}.png`), fullPage: true });
    });
  });
});
