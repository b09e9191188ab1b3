import { DocumentBuilder, OpenAPIObject } from '@nestjs/swagger';
import { PORTAL_COOKIE } from '../access/authenticator';

const SECURITY_SCHEME = 'api_key';
const PORTAL_SCHEME = 'portal_session';

/** What a non-public operation takes: an API key, or a portal session's cookie. */
export const SECURITY: OpenAPIObject['security'] = [{ [SECURITY_SCHEME]: [] }, { [PORTAL_SCHEME]: [] }];

/** The document's head (title, version, server) and its two security schemes. */
export function documentConfig(): Omit<OpenAPIObject, 'paths'> {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Wharf API')
    .setDescription(
      'Resources of the core and every loaded extension, and the webhook management API. ' +
        'Authenticate with `Authorization: Bearer <api key>`. Errors are JSON:API error objects.',
    )
    .setVersion('v1')
    .addServer('/', 'The api that serves this document.')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API key (opaque, `wharf_…`).' },
      SECURITY_SCHEME,
    )
    .build();
  // Keys are opaque, not JWTs (the builder fills bearerFormat in).
  delete (config.components?.securitySchemes?.[SECURITY_SCHEME] as { bearerFormat?: string }).bearerFormat;
  ((config.components ??= {}).securitySchemes ??= {})[PORTAL_SCHEME] = {
    type: 'apiKey',
    in: 'cookie',
    name: PORTAL_COOKIE,
    description:
      'A portal session: the HttpOnly cookie set by `POST /int/v1/portal-sessions/exchange` (see docs/portal.md).',
  };
  return config;
}
