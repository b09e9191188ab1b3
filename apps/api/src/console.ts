import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';

/** The built console (Vite writes it to dist/console); this file runs from src in tests and from dist otherwise. */
const base = resolve(__dirname, '../../..');
export const CONSOLE_DIR = join(base, basename(base) === 'dist' ? 'console' : 'dist/console');

/** Serves the console's static files at /console/ (no auth for the files; the app signs in with an API key). */
export function serveConsole(app: NestFastifyApplication): void {
  if (!existsSync(CONSOLE_DIR)) return;
  // Swagger UI registered @fastify/static already, so this instance must not decorate the reply again.
  app.useStaticAssets({ root: CONSOLE_DIR, prefix: '/console/', decorateReply: false, index: 'index.html' });
  app
    .getHttpAdapter()
    .getInstance()
    .get('/console', (_request, reply) => reply.redirect('/console/'));
}
