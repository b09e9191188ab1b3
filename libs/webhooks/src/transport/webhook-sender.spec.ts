import { Server, ServerResponse, createServer } from 'node:http';
import { AppConfig } from '@wharf/core';
import { WebhookSender } from './webhook-sender';

// Wide enough that a busy CI machine answers a local 2xx well within it.
const TIMEOUT_MS = 1000;

describe('WebhookSender: the per-attempt limit', () => {
  let server: Server;
  let url: string;
  let answer: (res: ServerResponse) => void;
  const timers: NodeJS.Timeout[] = [];
  const config = {
    nodeEnv: 'test',
    appKey: Buffer.alloc(32),
    webhooks: { allowPrivateTargets: true, timeoutMs: TIMEOUT_MS },
  } as unknown as AppConfig;
  const sender = new WebhookSender(config);
  const secrets = [`whsec_${Buffer.alloc(24, 1).toString('base64')}`];
  const send = (by = sender) => by.sendSigned(url, secrets, 'msg_1', '{}');

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  });
  afterEach(() => timers.splice(0).forEach(clearTimeout));
  afterAll(async () => {
    await sender.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('a 2xx within the limit is a success', async () => {
    answer = (res) => res.writeHead(200).end('ok');
    expect(await send()).toMatchObject({ status: 'successful', error: null, response_body: 'ok' });
  });

  it("a first send's limit starts once the dispatcher is loaded, not before", async () => {
    // Loading undici at the api's first test send took longer than the limit on a busy CI machine.
    const fresh = new WebhookSender(config);
    const load = fresh.prepare.bind(fresh);
    jest.spyOn(fresh, 'prepare').mockImplementation(async () => {
      await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 1.5));
      return load();
    });
    answer = (res) => res.writeHead(200).end('ok');
    try {
      const attempt = await send(fresh);
      expect(attempt).toMatchObject({ status: 'successful', error: null });
      expect(attempt.duration_ms).toBeLessThan(TIMEOUT_MS);
    } finally {
      await fresh.onApplicationShutdown();
    }
  });

  it('an answer whose headers come too late is a timeout', async () => {
    // Whether undici's headers timer (coarse) or the answer comes first, a 2xx after the limit is no success.
    answer = (res) => timers.push(setTimeout(() => res.writeHead(200).end('late'), TIMEOUT_MS * 2));
    expect(await send()).toMatchObject({ status: 'failed', error: 'timeout' });
  });

  it('a body still dripping in at the limit is a timeout, cut off there', async () => {
    answer = (res) => {
      res.writeHead(200);
      // A chunk every 100 ms never trips an idle timeout, but the whole body takes 4 s.
      for (let i = 0; i < 40; i++) timers.push(setTimeout(() => res.write('x'), i * 100));
      timers.push(setTimeout(() => res.end(), 4000));
    };
    const attempt = await send();
    expect(attempt).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(attempt.duration_ms).toBeLessThan(TIMEOUT_MS * 3);
  });
});
