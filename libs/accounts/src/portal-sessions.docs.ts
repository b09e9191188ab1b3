import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors, ApiUuidParam, dtoSchema, orNull } from '@wharf/core';
import { PortalSessionDto } from './portal-session.dto';
import { PORTAL_FEATURES } from './portal-sessions.service';

// The OpenAPI documentation of the portal-session routes.

const RECORD = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    uuid: { type: 'string', format: 'uuid' },
    company_uuid: { type: 'string', format: 'uuid' },
    read_only: { type: 'boolean' },
    features: { type: 'array', items: { type: 'string', enum: [...PORTAL_FEATURES] } },
    permissions: {
      type: 'array',
      items: { type: 'string' },
      description: 'Permission names and wildcards (a read-only session: `["*:read", "*:reveal"]`).',
    },
    return_url: orNull({ type: 'string' }),
    expires_at: { type: 'string', format: 'date-time' },
    exchanged_at: orNull({ type: 'string', format: 'date-time' }),
    revoked_at: orNull({ type: 'string', format: 'date-time' }),
    created_at: { type: 'string', format: 'date-time' },
  },
  required: [
    'id',
    'uuid',
    'company_uuid',
    'read_only',
    'features',
    'permissions',
    'return_url',
    'expires_at',
    'exchanged_at',
    'revoked_at',
    'created_at',
  ],
};
const ONE = { type: 'object', properties: { portal_session: RECORD }, required: ['portal_session'] };

/** The documentation of each route of PortalSessionsController. */
export const PortalSessionDocs = {
  create: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'createPortalSession',
        summary: 'Open a portal session: a link to the console signed in as a company',
        description:
          'The `url` opens the console as the company; its `token` (in the URL fragment, never sent to a server ' +
          'by the browser) is traded once for an HttpOnly session cookie. A company key opens its own company; a ' +
          'platform key (`api-keys:create --platform`) any company. `expires_in` seconds: 60 to 86400, default 3600. ' +
          '`permissions` default to the key’s own and may not exceed them; `read_only: true` is short for the ' +
          'permissions that only read, `["*:read", "*:reveal"]`.',
      }),
      ApiBody({
        schema: {
          anyOf: [
            {
              type: 'object',
              properties: { portal_session: dtoSchema(PortalSessionDto) },
              required: ['portal_session'],
            },
            dtoSchema(PortalSessionDto),
          ],
        },
        required: false,
      }),
      ApiCreatedResponse({
        description: 'The session, with its `url` and `token` (shown this once).',
        schema: {
          type: 'object',
          properties: {
            portal_session: {
              allOf: [
                RECORD,
                {
                  type: 'object',
                  properties: { url: { type: 'string' }, token: { type: 'string' } },
                  required: ['url', 'token'],
                },
              ],
            },
          },
          required: ['portal_session'],
        },
      }),
    ),
  exchange: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'exchangePortalSession',
        summary: 'Trade a portal link’s token for the session cookie',
        description:
          'The console calls it with the token of its URL fragment. Each token works once; the answer sets the ' +
          'HttpOnly, Secure, SameSite=None, Partitioned cookie that authenticates the session.',
      }),
      ApiBody({
        schema: { type: 'object', properties: { token: { type: 'string' } }, required: ['token'] },
      }),
      ApiErrors(401),
      ApiOkResponse({
        description: 'The session (the cookie is in Set-Cookie).',
        headers: { 'set-cookie': { description: 'The session cookie.', schema: { type: 'string' } } },
        schema: ONE,
      }),
    ),
  find: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'getPortalSession',
        summary: 'A portal session (never its token)',
        description: 'Of the key’s company, or one the key’s company opened for another company.',
      }),
      ApiUuidParam(),
      ApiOkResponse({ schema: ONE }),
    ),
  revoke: () =>
    applyDecorators(
      ApiOperation({
        operationId: 'revokePortalSession',
        summary: 'Revoke a portal session',
        description:
          'Its cookie stops authenticating (within seconds on every api process) and its link stops working.',
      }),
      ApiUuidParam(),
      ApiOkResponse({ description: 'The revoked session.', schema: ONE }),
    ),
};
