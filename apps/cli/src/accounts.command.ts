import {
  AppConfig,
  PermissionCatalog,
  dataSourceOptions,
  ensureDatabase,
  preflight,
  runMigrations,
} from '@wharf/core';
import { AccountsService } from '@wharf/accounts';
import { composeWharf } from '@wharf/webhooks';
import { DataSource } from 'typeorm';
import { ParsedArgs, UsageError } from './args';

/**
 * Runs `work` against the database, creating and migrating it first (quietly) when it is fresh. `check`
 * sees the permission catalog of the loaded extensions before anything connects.
 */
async function withAccounts<T>(
  config: AppConfig,
  work: (accounts: AccountsService) => Promise<T>,
  check?: (catalog: PermissionCatalog) => void,
): Promise<T> {
  const { manifests, permissions } = composeWharf(config);
  check?.(permissions);
  await preflight(config, { databaseMustExist: false });
  await ensureDatabase(config.databaseUrl);
  await runMigrations(config.databaseUrl, manifests);
  const dataSource = new DataSource(dataSourceOptions(config.databaseUrl, manifests));
  await dataSource.initialize();
  try {
    return await work(new AccountsService(dataSource));
  } finally {
    await dataSource.destroy();
  }
}

function text(args: ParsedArgs, name: string): string | undefined {
  const value = args.options[name];
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

/**
 * `--permissions a,b` (or repeated): the key's permissions, names and wildcards of the catalog; undefined
 * without the option (every permission).
 */
function permissionsOption(args: ParsedArgs): string[] | undefined {
  if (args.options.permissions === true)
    throw new UsageError('--permissions needs a value, e.g. "inventory.*,events:read"');
  const given = args.repeated.permissions?.flatMap((value) => value.split(',')).map((item) => item.trim());
  return given?.filter((item) => item !== '');
}

/** Refuses, in one line per problem, permissions the catalog does not have. */
function checkPermissions(permissions: string[] | undefined) {
  return (catalog: PermissionCatalog) => {
    if (permissions === undefined) return;
    if (!permissions.length) throw new UsageError('--permissions names no permission');
    const problems = catalog.problems(permissions);
    if (problems.length) throw new UsageError(problems.map(([, detail]) => detail).join('\nwharf: '));
  };
}

/** `companies:create --name N [--permissions P,…] [--json]`: a company and its first API key (shown once). */
export async function createCompany(config: AppConfig, args: ParsedArgs): Promise<void> {
  const name = text(args, 'name');
  if (!name) throw new UsageError('companies:create needs --name "<company name>"');
  const permissions = permissionsOption(args);
  const created = await withAccounts(
    config,
    (accounts) => accounts.createCompany(name, permissions),
    checkPermissions(permissions),
  );
  if (args.options.json) print(created);
  else
    process.stdout.write(
      `Company ${created.company.name} (${created.company.uuid})\nAPI key (shown once): ${created.api_key}\n`,
    );
}

/**
 * `api-keys:create --company UUID [--name N] [--platform] [--permissions P,…] [--json]` (a platform key
 * opens any company's portal; with --permissions the key is a restricted one, `wharf_rk_…`)
 */
export async function createApiKey(config: AppConfig, args: ParsedArgs): Promise<void> {
  const company = text(args, 'company');
  if (!company) throw new UsageError('api-keys:create needs --company <uuid>');
  const permissions = permissionsOption(args);
  const created = await withAccounts(
    config,
    async (accounts) => {
      if (!(await accounts.companyExists(company))) throw new UsageError(`No company with uuid ${company}`);
      const name = text(args, 'name') ?? null;
      return accounts.createApiKey(company, name, args.options.platform === true, permissions);
    },
    checkPermissions(permissions),
  );
  const restricted = permissions && { permissions: created.permissions };
  if (args.options.json) print({ api_key: created.key, uuid: created.uuid, ...restricted });
  else process.stdout.write(`API key ${created.uuid} (shown once): ${created.key}\n`);
}

/** `api-keys:revoke UUID` */
export async function revokeApiKey(config: AppConfig, args: ParsedArgs): Promise<void> {
  const uuid = args.positional[0];
  if (!uuid) throw new UsageError('api-keys:revoke needs the key uuid');
  const revoked = await withAccounts(config, (accounts) => accounts.revokeApiKey(uuid));
  if (!revoked) throw new UsageError(`No API key with uuid ${uuid}`);
  if (args.options.json) print({ uuid: revoked.uuid, revoked_at: revoked.revoked_at });
  else process.stdout.write(`Revoked API key ${revoked.uuid}\n`);
}

/** In development, an empty database gets a demo company and a key printed once, so `curl` works at once. */
export async function seedDemoCompany(config: AppConfig): Promise<void> {
  if (config.nodeEnv !== 'development') return;
  await withAccounts(config, async (accounts) => {
    if ((await accounts.countCompanies()) > 0) return;
    const { company, api_key } = await accounts.createCompany('Demo Company');
    process.stdout.write(
      `Created a demo company "${company.name}" (${company.uuid}). Its API key, shown only now:\n\n  ${api_key}\n\n` +
        `  curl -H "Authorization: Bearer ${api_key}" http://localhost:${config.port}/inventory/int/v1/warehouses\n\n`,
    );
  });
}
