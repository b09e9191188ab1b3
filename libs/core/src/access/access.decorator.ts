import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const KEYS_ONLY = 'wharf:keys-only';
export const READ_BY_POST = 'wharf:read-by-post';
/** Marks keys-only operations in the OpenAPI document (a portal session gets 403), removed when it is built. */
export const OPENAPI_KEYS_ONLY = 'x-wharf-keys-only';

/** Only an API key reaches this route, never a portal session (API keys, portal sessions themselves). */
export const KeysOnly = () =>
  applyDecorators(SetMetadata(KEYS_ONLY, true), ApiExtension(OPENAPI_KEYS_ONLY, true));

/**
 * A POST that only reads (evaluates, changes nothing): a read-only portal session may call it. Every other
 * POST, PUT, PATCH and DELETE is a write.
 */
export const ReadByPost = () => SetMetadata(READ_BY_POST, true);
