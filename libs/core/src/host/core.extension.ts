import { Extension } from '../extensions/extension.decorator';
import { ListIndexes1700000000002 } from '../migrations/1700000000002-list-indexes';
import { SearchGrams1700000000003 } from '../migrations/1700000000003-search-grams';
import { SearchWithoutFrequentGrams1700000000004 } from '../migrations/1700000000004-search-without-frequent-grams';
import { SearchQueryOneBody1700000000005 } from '../migrations/1700000000005-search-query-one-body';
import { CreateIdempotencyKeys1700000000007 } from '../migrations/1700000000007-create-idempotency-keys';
import { PermissionsController } from './permissions.controller';

/**
 * The kernel's own migrations (search functions and idempotency keys) and `GET /int/v1/permissions`.
 * (1700000000002 and 3 also index the locations table: they ran before locations became a module of its
 * own, which creates it at 1700000000001.)
 */
@Extension({
  name: 'core',
  namespace: 'int/v1',
  entities: [],
  migrations: [
    ListIndexes1700000000002,
    SearchGrams1700000000003,
    SearchWithoutFrequentGrams1700000000004,
    SearchQueryOneBody1700000000005,
    CreateIdempotencyKeys1700000000007,
  ],
  controllers: [PermissionsController],
})
export class CoreExtension {}
