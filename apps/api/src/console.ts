import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '@wharf/core';
import type { FastifyReply } from 'fastify';

/** The built console (Vite writes it to dist/console); this file runs from src in tests and from dist otherwise. */
const base = resolve(__dirname, '../../..');
export const CONSOLE_DIR = join(base, basename(base) === 'dist' ? 'console' : 'dist/console');

/**
 * Serves the console's static files at /console/ (no auth for the files; the app signs in with an API key or
 * a portal session). Only the pages of PORTAL_FRAME_ANCESTORS may frame it (CSP frame-ancestors).
 */
export function serveConsole(
  app: NestFastifyApplication,
  config: Pick<AppConfig, 'portalFrameAncestors'>,
): void {
  if (!existsSync(CONSOLE_DIR)) return;
  const policy = `frame-ancestors ${config.portalFrameAncestors.join(' ')}`;
  // Swagger UI registered @fastify/static already, so this instance must not decorate the reply again.
  app.useStaticAssets({
    root: CONSOLE_DIR,
    prefix: '/console/',
    decorateReply: false,
    index: 'index.html',
    // @fastify/static hands the reply itself (Nest's type names a narrower shape).
    setHeaders: (reply) => void (reply as unknown as FastifyReply).header('content-security-policy', policy),
  });
  app
    .getHttpAdapter()
    .getInstance()
    .get('/console', (_request, reply) => reply.redirect('/console/'));
}
