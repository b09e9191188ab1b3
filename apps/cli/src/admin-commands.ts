import 'reflect-metadata';
import { loadConfig, runMain } from '@wharf/core';
import { createApiKey, createCompany, revokeApiKey } from './accounts.command';
import { ParsedArgs, UsageError } from './args';
import { deleteCompany } from './companies.command';
import { emberClient, typescriptClient } from './clients/client.command';
import { migrate } from './migrate.command';
import { reencryptSecrets } from './secrets.command';
import { checkMigrations, generateMigrationFile } from './migration.command';
import { newExtension } from './scaffold.command';
import { start } from './start.command';

const COMMANDS = {
  start,
  migrate,
  'companies:create': createCompany,
  'companies:delete': deleteCompany,
  'api-keys:create': createApiKey,
  'api-keys:revoke': revokeApiKey,
  'secrets:reencrypt': reencryptSecrets,
  'client:typescript': typescriptClient,
  'client:ember': emberClient,
  'migration:check': checkMigrations,
  'migration:generate': generateMigrationFile,
  'extension:new': newExtension,
} as const;

/** Runs an admin command (configured from the environment), or prints `usage` for none or an unknown one. */
export function runAdminCommand(args: ParsedArgs, usage: string): void {
  runMain(async () => {
    // Own keys only: `constructor` or `toString` is an unknown command, not Object.prototype's.
    const command =
      args.command && Object.hasOwn(COMMANDS, args.command)
        ? COMMANDS[args.command as keyof typeof COMMANDS]
        : undefined;
    if (!command) {
      if (args.command) process.stderr.write(`wharf: unknown command: ${args.command}\n`);
      process.stderr.write(`${usage}\n`);
      process.exitCode = args.command ? 2 : 0;
      return;
    }
    try {
      await command(loadConfig(), args);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`wharf: ${error.message}\n`);
      process.exitCode = 2;
    }
  });
}
