#!/usr/bin/env node
import 'reflect-metadata';
import { loadConfig, runMain } from '@wharf/core';
import { UsageError, createApiKey, createCompany, revokeApiKey } from './accounts.command';
import { ApiCallError } from './api-client';
import { parseArgs } from './args';
import { listen } from './listen.command';
import { trigger } from './trigger.command';
import { deleteCompany } from './companies.command';
import { emberClient, typescriptClient } from './clients/client.command';
import { migrate } from './migrate.command';
import { reencryptSecrets } from './secrets.command';
import { checkMigrations, generateMigrationFile } from './migration.command';
import { newExtension } from './scaffold.command';
import { start } from './start.command';

const USAGE = `usage: wharf <command>
  start                                         create + migrate the database, then run api and worker
  migrate                                       create the database if needed and run pending migrations
  companies:create --name N [--permissions P,…] [--json]
                                                create a company and its first API key
  companies:delete UUID [--dry-run]             remove a company and every row it owns (--dry-run: counts only)
  api-keys:create --company UUID [--name N] [--platform] [--permissions P,…] [--json]
                                                --platform: the key may open a portal session for any company
                                                --permissions: names and wildcards (inventory.*, *:read); default *
  api-keys:revoke UUID
  secrets:reencrypt [--json]                    rewrite webhook secrets under APP_KEY (after a key rotation)
  client:typescript [DIR]                       regenerate @wharf/client's types from the api (npm run client:generate)
  client:ember DIR                              write Ember Data models, adapters and serializers into an app
  migration:check                               fail, naming each column, when entities and migrations disagree
  migration:generate <extension> <Name> [--dir D] [--backfill column=value]
                                                write the migration of the extension's entity changes
  extension:new <name> --resource <singular>    scaffold extensions/<name> (entity, controller, migration, e2e test)
  listen --forward-to URL [--events E,…] [--payload thin] [--filter JSON]
                                                forward the company's webhooks to a local URL, signed
  trigger <event> [--data file.json]            send a test event to every endpoint and listen session for it
                                                listen, trigger: [--api URL] (WHARF_API_URL, default
                                                http://localhost:3000) [--key KEY] (WHARF_API_KEY)`;

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

/** Commands that talk to a running api, not to the database: they need no configuration of their own. */
const API_COMMANDS = { listen, trigger } as const;

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  // Own keys only: `constructor` or `toString` is an unknown command, not Object.prototype's.
  const command =
    args.command && Object.hasOwn(COMMANDS, args.command)
      ? COMMANDS[args.command as keyof typeof COMMANDS]
      : undefined;
  const apiCommand =
    args.command && Object.hasOwn(API_COMMANDS, args.command)
      ? API_COMMANDS[args.command as keyof typeof API_COMMANDS]
      : undefined;
  if (apiCommand) {
    try {
      await apiCommand(args);
    } catch (error) {
      const unreachable = error instanceof TypeError && error.message === 'fetch failed';
      if (!(error instanceof UsageError || error instanceof ApiCallError || unreachable)) throw error;
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const message = unreachable ? 'cannot reach the api (--api)' : error.message;
      process.stderr.write(`wharf: ${message}${cause ? ` (${cause})` : ''}\n`);
      process.exitCode = error instanceof UsageError ? 2 : 1;
    }
    return;
  }
  if (!command) {
    if (args.command) process.stderr.write(`wharf: unknown command: ${args.command}\n`);
    process.stderr.write(`${USAGE}\n`);
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
