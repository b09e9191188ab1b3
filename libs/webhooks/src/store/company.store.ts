import { COMPANY_ROWS, DELETE_COMPANY_ROWS } from './company.sql';
import { InTransaction } from './delivery.store';
import { DELIVERIES_TABLE, EVENTS_TABLE, REQUEST_LOGS_TABLE } from './tables';

/** The store's tables with a company's rows: only the store's statements read or delete them. */
export const COMPANY_STORE_TABLES: readonly string[] = [DELIVERIES_TABLE, EVENTS_TABLE, REQUEST_LOGS_TABLE];

/** How many rows of each of the store's tables the company has, by table. */
export async function companyStoreRows(db: InTransaction, company: string): Promise<Record<string, number>> {
  return (await db.query(COMPANY_ROWS, [company])).rows[0];
}

/** Deletes the company's rows left in the store's tables (in the caller's transaction). */
export async function deleteCompanyStoreRows(db: InTransaction, company: string): Promise<void> {
  await db.query(DELETE_COMPANY_ROWS, [company]);
}
