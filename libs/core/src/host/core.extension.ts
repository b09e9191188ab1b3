import { ApiKey } from '../auth/api-key.entity';
import { ApiKeysController } from '../auth/api-keys.controller';
import { Company } from '../auth/company.entity';
import { PortalSession } from '../auth/portal-session.entity';
import { PortalSessionsController } from '../auth/portal-sessions.controller';
import { SessionController } from '../auth/session.controller';
import { Extension } from '../extensions/extension.decorator';
import { LocationController } from '../locations/location.controller';
import { Location } from '../locations/location.entity';
import { CreateCompaniesAndApiKeys1700000000000 } from '../migrations/1700000000000-create-companies-and-api-keys';
import { CreateLocations1700000000001 } from '../migrations/1700000000001-create-locations';
import { ListIndexes1700000000002 } from '../migrations/1700000000002-list-indexes';
import { SearchGrams1700000000003 } from '../migrations/1700000000003-search-grams';
import { SearchWithoutFrequentGrams1700000000004 } from '../migrations/1700000000004-search-without-frequent-grams';
import { SearchQueryOneBody1700000000005 } from '../migrations/1700000000005-search-query-one-body';
import { CreatePortalSessions1700000000006 } from '../migrations/1700000000006-create-portal-sessions';
import { CreateIdempotencyKeys1700000000007 } from '../migrations/1700000000007-create-idempotency-keys';
import { NotifyApiKeyChanges1700000000008 } from '../migrations/1700000000008-notify-api-key-changes';

/** The core's own tables and resources, declared like any extension but mounted at `/int/v1`. */
@Extension({
  name: 'core',
  namespace: 'int/v1',
  entities: [Company, ApiKey, PortalSession, Location],
  migrations: [
    CreateCompaniesAndApiKeys1700000000000,
    CreateLocations1700000000001,
    ListIndexes1700000000002,
    SearchGrams1700000000003,
    SearchWithoutFrequentGrams1700000000004,
    SearchQueryOneBody1700000000005,
    CreatePortalSessions1700000000006,
    CreateIdempotencyKeys1700000000007,
    NotifyApiKeyChanges1700000000008,
  ],
  controllers: [LocationController, ApiKeysController, PortalSessionsController, SessionController],
})
export class CoreExtension {}
