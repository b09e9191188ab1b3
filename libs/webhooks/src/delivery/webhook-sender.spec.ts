import { Server, ServerResponse, createServer } from 'node:http';
import { AppConfig } from '@wharf/core';
import { WebhookSender } from './webhook-sender';

const TIMEOUT_MS = 400;

describe('WebhookSender: the per-attempt limit', () => {
  let server: Server;
  let url: string;
  let answer: (res: ServerResponse) => void;
  const timers: NodeJS.Timeout[] = [];
  const sender = new WebhookSender({
    nodeEnv: 'test',
    appKey: Buffer.alloc(32),
    webhooks: { allowPrivateTargets: true, timeoutMs: TIMEOUT_MS },
  } as unknown as AppConfig);
  const send = () =>
    sender.sendSigned(url, [`whsec_${Buffer.alloc(24, 1).toString('base64')}`], 'msg_1', '{}');

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

  it('an answer whose headers come too late is a timeout', async () => {
    // Whether undici's headers timer (coarse) or the answer comes first, a 2xx after the limit is no success.
    answer = (res) => timers.push(setTimeout(() => res.writeHead(200).end('late'), TIMEOUT_MS * 2));
    expect(await send()).toMatchObject({ status: 'failed', error: 'timeout' });
  });

  it('a body still dripping in at the limit is a timeout, cut off there', async () => {
    answer = (res) => {
      res.writeHead(200);
      // A chunk every 100 ms never trips an idle timeout, but the whole body takes 2 s.
      for (let i = 0; i < 20; i++) timers.push(setTimeout(() => res.write('x'), i * 100));
      timers.push(setTimeout(() => res.end(), 2000));
    };
    const attempt = await send();
    expect(attempt).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(attempt.duration_ms).toBeLessThan(1000);
  });
});
