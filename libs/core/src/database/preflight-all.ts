import { AppConfig } from '../config/config';
import { checkPostgres, checkRedis } from './preflight';

/** Fails fast, with one line, when PostgreSQL or Redis cannot be reached. */
export async function preflight(config: AppConfig, { databaseMustExist = true } = {}): Promise<void> {
  await Promise.all([checkPostgres(config.databaseUrl, databaseMustExist), checkRedis(config)]);
}
