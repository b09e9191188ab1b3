#!/usr/bin/env node
import { ApiCallError } from './api-client';
import { ParsedArgs, UsageError, parseArgs } from './args';

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

type ApiCommand = (args: ParsedArgs) => Promise<void>;

/**
 * Commands that talk to a running api, not to the database: loaded on their own, so they start without the
 * server's modules and need no configuration but `--api` and `--key`.
 */
const API_COMMANDS: Record<string, () => Promise<ApiCommand>> = {
  listen: async () => (await import('./listen.command')).listen,
  trigger: async () => (await import('./trigger.command')).trigger,
};

async function runApiCommand(load: () => Promise<ApiCommand>, args: ParsedArgs): Promise<void> {
  try {
    await (
      await load()
    )(args);
  } catch (error) {
    const unreachable = error instanceof TypeError && error.message === 'fetch failed';
    if (!(error instanceof UsageError || error instanceof ApiCallError || unreachable)) {
      process.stderr.write(`wharf: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exitCode = 1;
      return;
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const message = unreachable ? 'cannot reach the api (--api)' : error.message;
    process.stderr.write(`wharf: ${message}${cause ? ` (${cause})` : ''}\n`);
    process.exitCode = error instanceof UsageError ? 2 : 1;
  }
}

const args = parseArgs(process.argv.slice(2));
if (args.command && Object.hasOwn(API_COMMANDS, args.command))
  void runApiCommand(API_COMMANDS[args.command], args);
// eslint-disable-next-line @typescript-eslint/no-require-imports
else (require('./admin-commands') as typeof import('./admin-commands')).runAdminCommand(args, USAGE);
