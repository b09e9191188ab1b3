import { Writable } from 'node:stream';
import Fastify, { LogController } from 'fastify';
import pino from 'pino';
import type { NodeEnv } from '../config/config';
import { logRequests } from './request-log';

/** A Fastify server logging into an array, with a fast, a failing and a slow route. */
async function server(nodeEnv: NodeEnv, level = 'info') {
  const lines: { level: number; msg: string; status?: number }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const fastify = Fastify({
    loggerInstance: pino({ level }, stream),
    logController: new LogController({ disableRequestLogging: true }),
  });
  const app = { getHttpAdapter: () => ({ getInstance: () => fastify }) } as never;
  const log = logRequests(app, { nodeEnv }, 50);
  fastify.addHook('onResponse', (request, reply, done) => {
    void log(request, reply);
    done();
  });
  fastify.get('/fast', async () => ({ ok: true }));
  fastify.get('/boom', async (_request, reply) => reply.status(500).send({ errors: [] }));
  fastify.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 80));
    return { ok: true };
  });
  await fastify.ready();
  const call = async (url: string) => (await fastify.inject({ method: 'GET', url })).statusCode;
  return { lines, call, close: () => fastify.close() };
}

describe('logRequests', () => {
  it('production: exactly one line per request, info unless it was slow', async () => {
    const { lines, call, close } = await server('production');
    expect([
      await call('/fast'),
      await call('/fast?page=2'),
      await call('/boom'),
      await call('/slow'),
    ]).toEqual([200, 200, 500, 200]);
    await close();
    expect(lines.map(({ level, msg }) => [level, msg.replace(/ \d+ ms/, ' _ ms')])).toEqual([
      [30, 'GET /fast 200 _ ms'],
      [30, 'GET /fast?page=2 200 _ ms'],
      [30, 'GET /boom 500 _ ms'],
      [40, 'GET /slow 200 _ ms (slow)'],
    ]);
  });

  it.each(['development', 'test'] as const)('%s: only slow requests', async (nodeEnv) => {
    const { lines, call, close } = await server(nodeEnv);
    for (let i = 0; i < 5; i++) expect(await call('/fast')).toBe(200);
    expect(await call('/boom')).toBe(500);
    expect(await call('/slow')).toBe(200);
    await close();
    // The slow request, logged after the five fast ones and the failing one, which are not.
    expect(lines.map(({ level, msg }) => [level, msg.replace(/ \d+ ms/, ' _ ms')])).toEqual([
      [40, 'GET /slow 200 _ ms (slow)'],
    ]);
  });

  it('at LOG_LEVEL debug: a line per request in every environment, a token in the query masked', async () => {
    const { lines, call, close } = await server('test', 'debug');
    expect(await call('/fast?portal_token=wharf_portal_secret&page=2')).toBe(200);
    expect(await call('/fast?token=abc')).toBe(200);
    await close();
    expect(lines.map(({ msg }) => msg.replace(/ \d+ ms/, ' _ ms'))).toEqual([
      'GET /fast?portal_token=[redacted]&page=2 200 _ ms',
      'GET /fast?token=[redacted] 200 _ ms',
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});
