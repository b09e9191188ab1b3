import fastifyCors from '@fastify/cors';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/config';
import { GateStage, Outcome, SENT } from './pipeline-stage';

/** How long a browser may reuse a preflight answer (Chromium caps it at two hours). */
export const CORS_MAX_AGE_SECONDS = 7200;

type CorsHook = (request: FastifyRequest, reply: FastifyReply, next: (error?: Error) => void) => void;

/**
 * Browser access per CORS_ORIGINS, as the `cors` stage of the request pipeline. Credentials stay off: auth
 * is a bearer header, never a cookie, which is also what makes `*` safe to allow. @fastify/cors does the
 * work; its request hook is kept to be run as a stage instead of being added as a hook of its own (as
 * Nest's enableCors keeps it), and it still adds the OPTIONS route preflights reach.
 */
export async function configureCors(app: NestFastifyApplication, config: AppConfig): Promise<GateStage> {
  const fastify = app.getHttpAdapter().getInstance();
  const allowed = config.corsOrigins;
  let hook: CorsHook | undefined;
  const keepHook = new Proxy(fastify, {
    get: (target, name) =>
      name === 'addHook' ? (_name: string, run: CorsHook) => void (hook = run) : bound(target, name),
  });
  await new Promise<void>((resolve, reject) =>
    fastifyCors(
      keepHook,
      {
        // A refused origin gets no CORS header at all (the plugin would still send the preflight's methods).
        origin:
          allowed === '*'
            ? '*'
            : (origin: string | undefined, grant: (error: Error | null, origin: string | false) => void) =>
                grant(null, origin !== undefined && allowed.includes(origin) ? origin : false),
        methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'If-None-Match', 'Idempotency-Key'],
        exposedHeaders: [
          'x-request-id',
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'retry-after',
          'etag',
          'location',
          'allow',
          'idempotent-replayed',
        ],
        maxAge: CORS_MAX_AGE_SECONDS,
        credentials: false,
      },
      (error?: Error) => (error ? reject(error) : resolve()),
    ),
  );
  const cors = hook!;
  return (request, reply) => {
    // With this configuration the plugin calls next at once (its origin check is synchronous), or sends a
    // preflight's answer without calling it.
    let called = false;
    let failed: Error | undefined;
    let later: ((outcome: Outcome) => void) | undefined;
    cors(request, reply, (error) => {
      called = true;
      failed = error;
      later?.(error);
    });
    if (called) return failed;
    if (reply.sent) return SENT;
    return new Promise<Outcome>((resolve) => (later = resolve));
  };
}

function bound(target: object, name: string | symbol): unknown {
  const value = Reflect.get(target, name, target) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
