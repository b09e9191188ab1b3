import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { ModuleRef } from '@nestjs/core';
import { RequestScope } from '@wharf/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService, PortalSessionsService } from '@wharf/accounts';
import { StreamPrincipal } from './stream-client';

/**
 * Who a long-lived stream is for, and how to ask whether its key or portal session still holds. The api's
 * auth services are looked up when a stream opens: the worker loads the webhooks module without them.
 */
export function streamPrincipal(moduleRef: ModuleRef, scope: RequestScope): StreamPrincipal {
  const portal = scope.portal;
  if (portal) {
    const portals = moduleRef.get(PortalSessionsService, { strict: false });
    return { key: `portal:${portal.sessionUuid}`, active: () => portals.isActive(portal.sessionUuid) };
  }
  const accounts = moduleRef.get(AccountsService, { strict: false });
  const key = scope.apiKeyUuid ?? '';
  return { key: `key:${key}`, active: () => accounts.isActive(key) };
}

/**
 * Takes the response over as a Server-Sent Events stream: what the hooks set so far (x-request-id, rate
 * limit, CORS) goes out with the stream's headers, then `retry: <retryMs>`. Undefined for a HEAD, answered.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  retryMs: number,
): ServerResponse | undefined {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  if (request.method === 'HEAD') {
    raw.end();
    return undefined;
  }
  raw.write(`retry: ${retryMs}\n\n`);
  return raw;
}
