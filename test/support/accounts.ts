import { AccountsService } from '@wharf/accounts';
import { TestApi } from './test-app';

export interface TestCompany {
  uuid: string;
  name: string;
  key: string;
}

/** A company with a fresh API key, created through the same service the CLI uses. */
export async function createCompany(api: TestApi, name = 'Acme'): Promise<TestCompany> {
  const created = await api.app.get(AccountsService).createCompany(name);
  return { uuid: created.company.uuid, name: created.company.name, key: created.api_key };
}
