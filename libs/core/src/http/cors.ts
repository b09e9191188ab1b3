import fastifyCors from '@fastify/cors';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '../config/config';

/** How long a browser may reuse a preflight answer (Chromium caps it at two hours). */
export const CORS_MAX_AGE_SECONDS = 7200;

/**
 * Browser access per CORS_ORIGINS. Credentials stay off: auth is a bearer header, never a cookie,
 * which is also what makes `*` safe to allow.
 */
export async function configureCors(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const allowed = config.corsOrigins;
  await app.register(fastifyCors, {
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
  });
}
