import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IS_PUBLIC = 'wharf:public';

/** Marks public operations in the OpenAPI document (turned into `security: []` when it is built). */
export const OPENAPI_PUBLIC = 'x-wharf-public';

/** Opens a route or controller to unauthenticated callers (health, docs, console files). */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(OPENAPI_PUBLIC, true));
