import {
  RARELY_USED_MODULES,
  deferModules,
  loadNestCommonWithLazyDateFormat,
  loadPgWithoutFetch,
} from '@wharf/core/host/deferred-modules.loader';

// main.ts imports this first: these must run before anything requires TypeORM, class-validator, BullMQ, pg
// or Nest.
deferModules(RARELY_USED_MODULES);
loadPgWithoutFetch();
loadNestCommonWithLazyDateFormat();
