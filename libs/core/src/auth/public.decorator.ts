import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'wharf:public';

/** Opens a route or controller to unauthenticated callers (health, docs, console files). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
