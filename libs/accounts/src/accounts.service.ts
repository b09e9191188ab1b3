import { hash, timingSafeEqual } from 'node:crypto';
import { DataSource } from 'typeorm';
import { API_KEY_PREFIX, RESTRICTED_KEY_PREFIX, generateApiKey, isWellFormedApiKey } from './api-key.format';
import { ApiKeyRevocations } from './api-key-revocations';

export interface ApiKeySummary {
  /** The same value as uuid, as on every record. */
  id: string;
  uuid: string;
  name: string | null;
  prefix: string;
  last_four: string;
  /** Names and wildcards; `["*"]`: every permission. */
  permissions: string[];
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export interface Caller {
  companyUuid: string;
  apiKeyUuid: string;
  /** A platform key (`api-keys:create --platform`): may open a portal session for any company. */
  platform: boolean;
  /** As stored: names and wildcards. */
  permissions: string[];
}

/** Every permission: what keys made without a list hold, and what keys made before permissions hold. */
export const EVERY_PERMISSION = ['*'];

/** A list as stored: each once, and `*` alone when it is there. */
export function normalisePermissions(permissions: readonly string[]): string[] {
  return permissions.includes('*') ? [...EVERY_PERMISSION] : [...new Set(permissions)];
}

const prefixOf = (permissions: readonly string[]) =>
  permissions.includes('*') ? API_KEY_PREFIX : RESTRICTED_KEY_PREFIX;

const SUMMARY =
  'uuid AS id, uuid, name, prefix, last_four, permissions, last_used_at, revoked_at, created_at';
const CACHE_MS = 5_000;
const LAST_USED_EVERY_MS = 60_000;

export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

/** Companies and their API keys: used by the CLI, the key management routes and the auth guard. */
export class AccountsService {
  // By the key as sent: a hit costs no hash.
  private readonly cache = new Map<string, { caller: Caller; until: number }>();
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly active = new Map<string, { active: boolean; until: number }>();

  /** Without `revocations` (the CLI) keys are looked up every time: only a process that hears them caches. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly revocations?: ApiKeyRevocations,
  ) {
    revocations?.onChange(() => {
      this.cache.clear();
      this.active.clear();
    });
  }

  /** Stops listening for revocations (the api's shutdown). */
  onApplicationShutdown(): void {
    this.revocations?.close();
  }

  /** A company and its first key (`permissions`: checked against the catalog by the caller). */
  async createCompany(
    name: string,
    permissions: readonly string[] = EVERY_PERMISSION,
  ): Promise<{ company: { uuid: string; name: string }; api_key: string }> {
    const held = normalisePermissions(permissions);
    return this.dataSource.transaction(async (manager) => {
      const [company] = await manager.query(
        'INSERT INTO companies (uuid, name) VALUES (gen_random_uuid(), $1) RETURNING uuid, name',
        [name],
      );
      const key = generateApiKey(prefixOf(held));
      await manager.query(
        'INSERT INTO api_keys (uuid, company_uuid, name, prefix, last_four, key_hash, permissions) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6::jsonb)',
        [company.uuid, 'default', prefixOf(held), key.slice(-4), hashApiKey(key), JSON.stringify(held)],
      );
      return { company: { uuid: company.uuid, name: company.name }, api_key: key };
    });
  }

  async companyExists(uuid: string): Promise<boolean> {
    if (!/^[0-9a-f-]{36}$/i.test(uuid)) return false;
    return (await this.dataSource.query('SELECT 1 FROM companies WHERE uuid = $1', [uuid])).length > 0;
  }

  async countCompanies(): Promise<number> {
    const [row] = await this.dataSource.query('SELECT count(*)::int AS n FROM companies');
    return row.n;
  }

  /** A key of the company (`permissions`: checked against the catalog, and the creator's, by the caller). */
  async createApiKey(
    companyUuid: string,
    name: string | null,
    platform = false,
    permissions: readonly string[] = EVERY_PERMISSION,
  ): Promise<ApiKeySummary & { key: string }> {
    const held = normalisePermissions(permissions);
    const key = generateApiKey(prefixOf(held));
    const [row] = await this.dataSource.query(
      `INSERT INTO api_keys (uuid, company_uuid, name, prefix, last_four, key_hash, platform, permissions)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${SUMMARY}`,
      [companyUuid, name, prefixOf(held), key.slice(-4), hashApiKey(key), platform, JSON.stringify(held)],
    );
    return { ...row, key };
  }

  async listApiKeys(companyUuid: string): Promise<ApiKeySummary[]> {
    return this.dataSource.query(
      `SELECT ${SUMMARY} FROM api_keys WHERE company_uuid = $1 ORDER BY api_keys.created_at, api_keys.id`,
      [companyUuid],
    );
  }

  /** Revokes a key (of the company, when given); returns it, or undefined when there is no such key. */
  async revokeApiKey(uuid: string, companyUuid?: string): Promise<ApiKeySummary | undefined> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return undefined;
    // Every api process drops the key on the trigger's NOTIFY; the answer waits until this one hears it.
    const notice = this.revocations?.expect(uuid.toLowerCase());
    const [[row]] = await this.dataSource
      .query(
        `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()), updated_at = now()
       WHERE uuid = $1 ${companyUuid ? 'AND company_uuid = $2' : ''} RETURNING ${SUMMARY}`,
        companyUuid ? [uuid, companyUuid] : [uuid],
      )
      .finally(() => this.revocations?.invalidate());
    if (!row) notice?.cancel();
    await notice?.heard;
    return row;
  }

  /** The caller behind a key while it is cached (fresh and heard of no change since), else undefined. */
  cachedCaller(key: string): Caller | undefined {
    const cached = this.caching() ? this.cache.get(key) : undefined;
    return cached && cached.until > Date.now() ? cached.caller : undefined;
  }

  /** The caller behind a key, or undefined. Malformed keys never reach the database. */
  async authenticate(key: string): Promise<Caller | undefined> {
    const fresh = this.cachedCaller(key);
    if (fresh) return fresh;
    if (!isWellFormedApiKey(key)) return undefined;
    const generation = this.revocations?.generation;
    const hash = hashApiKey(key);
    const [row] = await this.dataSource.query(
      'SELECT uuid, company_uuid, key_hash, platform, permissions FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash))) return undefined;
    const caller: Caller = {
      companyUuid: row.company_uuid,
      apiKeyUuid: row.uuid,
      platform: row.platform === true,
      permissions: row.permissions,
    };
    if (this.cacheable(generation)) {
      this.cache.delete(key); // expired: re-inserted last, so the oldest entries stay first
      this.cache.set(key, { caller, until: Date.now() + CACHE_MS });
      this.evictExpired();
    }
    this.touch(caller.apiKeyUuid);
    return caller;
  }

  /** Whether a key still authenticates (for long-lived streams; cached like authenticate). */
  async isActive(apiKeyUuid: string): Promise<boolean> {
    const cached = this.caching() ? this.active.get(apiKeyUuid) : undefined;
    if (cached && cached.until > Date.now()) return cached.active;
    const generation = this.revocations?.generation;
    const rows = await this.dataSource.query(
      'SELECT 1 FROM api_keys WHERE uuid = $1 AND revoked_at IS NULL',
      [apiKeyUuid],
    );
    if (this.cacheable(generation))
      this.active.set(apiKeyUuid, { active: rows.length > 0, until: Date.now() + CACHE_MS });
    return rows.length > 0;
  }

  /** Whether the caches may be used: only while this process hears revocations. */
  private caching(): boolean {
    return this.revocations?.trusted() === true;
  }

  /** Whether what a lookup begun under `generation` read may be cached: no change was heard since. */
  private cacheable(generation: number | undefined): boolean {
    return this.caching() && generation === this.revocations?.generation;
  }

  /** Drops the expired entries at the front (insertion order is expiry order). */
  private evictExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.cache) {
      if (entry.until > now) return;
      this.cache.delete(key);
    }
  }

  /** Records last_used_at at most once a minute per key, off the request path. */
  private touch(apiKeyUuid: string): void {
    const now = Date.now();
    if (now - (this.lastUsedWrites.get(apiKeyUuid) ?? 0) < LAST_USED_EVERY_MS) return;
    this.lastUsedWrites.set(apiKeyUuid, now);
    this.dataSource
      .query('UPDATE api_keys SET last_used_at = now() WHERE uuid = $1', [apiKeyUuid])
      .catch(() => undefined);
  }
}
