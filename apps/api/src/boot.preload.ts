import {
  RARELY_USED_MODULES,
  deferModules,
  loadPgWithoutFetch,
} from '@wharf/core/host/deferred-modules.loader';

// main.ts imports this first: both must run before anything requires TypeORM, class-validator, BullMQ or pg.
deferModules(RARELY_USED_MODULES);
loadPgWithoutFetch();
