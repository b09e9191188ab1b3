import { hash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { PORTAL_COOKIE } from '@wharf/core';

/** The console sections a portal session may show besides the endpoints (all of them by default). */
export const PORTAL_FEATURES = ['activity', 'catalog'] as const;
export const PORTAL_TOKEN_PREFIX = 'wharf_portal_';
/** The cookie the link's token is exchanged for (HttpOnly: the console's scripts never see it). */
export const DEFAULT_PORTAL_SECONDS = 3600;
export const MAX_PORTAL_SECONDS = 24 * 3600;

export interface PortalPrincipal {
  sessionUuid: string;
  companyUuid: string;
  readOnly: boolean;
  /** As stored: names and wildcards. */
  permissions: string[];
  /** Epoch ms. */
  expiresAt: number;
}

export interface PortalSessionRecord {
  uuid: string;
  company_uuid: string;
  read_only: boolean;
  features: string[];
  permissions: string[];
  return_url: string | null;
  expires_at: Date;
  exchanged_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

export interface NewPortalSession {
  companyUuid: string;
  createdByCompanyUuid: string;
  readOnly: boolean;
  permissions: string[];
  expiresInSeconds: number;
  returnUrl: string | null;
  features: string[];
}

const RECORD =
  'uuid, company_uuid, read_only, features, permissions, return_url, expires_at, exchanged_at, revoked_at, created_at';
const CACHE_MS = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN = /^wharf_portal_[A-Za-z0-9_-]{43}$/;
const COOKIE = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (text: string) => hash('sha256', text, 'hex');
const secret = () => randomBytes(32).toString('base64url');

/**
 * Portal sessions: a one-time link token, exchanged once for an HttpOnly cookie that authenticates as one
 * company until the session expires or is revoked. The link cannot be replayed after the exchange (it may
 * sit in a browser's history or a screenshot); only SHA-256 hashes of both secrets are stored.
 */
export class PortalSessionsService {
  private readonly cache = new Map<string, { principal: PortalPrincipal | undefined; until: number }>();

  constructor(private readonly dataSource: DataSource) {}

  async create(input: NewPortalSession): Promise<PortalSessionRecord & { token: string }> {
    const token = `${PORTAL_TOKEN_PREFIX}${secret()}`;
    const [row] = await this.dataSource.query(
      `INSERT INTO portal_sessions (company_uuid, created_by_company_uuid, token_hash, read_only, features, return_url, expires_at, permissions)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, now() + $7 * interval '1 second', $8::jsonb) RETURNING ${RECORD}`,
      [
        input.companyUuid,
        input.createdByCompanyUuid,
        sha256(token),
        input.readOnly,
        JSON.stringify(input.features),
        input.returnUrl,
        input.expiresInSeconds,
        JSON.stringify(input.permissions),
      ],
    );
    return { ...row, token };
  }

  /** A session the caller's company may see: its own company's, or one it opened for another company. */
  async find(uuid: string, callerCompany: string): Promise<PortalSessionRecord | undefined> {
    if (!UUID.test(uuid)) return undefined;
    const [row] = await this.dataSource.query(
      `SELECT ${RECORD} FROM portal_sessions WHERE uuid = $1 AND (company_uuid = $2 OR created_by_company_uuid = $2)`,
      [uuid, callerCompany],
    );
    return row;
  }

  async revoke(uuid: string, callerCompany: string): Promise<PortalSessionRecord | undefined> {
    if (!UUID.test(uuid)) return undefined;
    const [[row]] = await this.dataSource.query(
      `UPDATE portal_sessions SET revoked_at = COALESCE(revoked_at, now())
       WHERE uuid = $1 AND (company_uuid = $2 OR created_by_company_uuid = $2) RETURNING ${RECORD}, cookie_hash`,
      [uuid, callerCompany],
    );
    if (!row) return undefined;
    if (row.cookie_hash) this.cache.delete(row.cookie_hash);
    this.cache.delete(`uuid:${row.uuid}`);
    delete row.cookie_hash;
    return row;
  }

  /**
   * Trades a link's token for a cookie value, once: a used, expired, revoked or unknown token is undefined.
   * The cookie lives as long as the session.
   */
  async exchange(token: string): Promise<{ cookie: string; session: PortalSessionRecord } | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const cookie = secret();
    const [[row]] = await this.dataSource.query(
      `UPDATE portal_sessions SET cookie_hash = $2, exchanged_at = now()
       WHERE token_hash = $1 AND exchanged_at IS NULL AND revoked_at IS NULL AND expires_at > now()
       RETURNING ${RECORD}`,
      [sha256(token), sha256(cookie)],
    );
    return row ? { cookie, session: row } : undefined;
  }

  /** The session behind a cookie value, or undefined (cached briefly; a revoke here clears it at once). */
  async authenticate(cookie: string): Promise<PortalPrincipal | undefined> {
    if (!COOKIE.test(cookie)) return undefined;
    const key = sha256(cookie);
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now())
      return cached.principal && cached.principal.expiresAt > Date.now() ? cached.principal : undefined;
    const [row] = await this.dataSource.query(
      `SELECT uuid, company_uuid, read_only, permissions, expires_at FROM portal_sessions
       WHERE cookie_hash = $1 AND revoked_at IS NULL AND expires_at > now()`,
      [key],
    );
    const principal: PortalPrincipal | undefined = row && {
      sessionUuid: row.uuid,
      companyUuid: row.company_uuid,
      readOnly: row.read_only,
      permissions: row.permissions,
      expiresAt: new Date(row.expires_at).getTime(),
    };
    this.cache.set(key, { principal, until: Date.now() + CACHE_MS });
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
    return principal;
  }

  /** Whether a session still authenticates (for long-lived streams), cached like authenticate. */
  async isActive(sessionUuid: string): Promise<boolean> {
    const key = `uuid:${sessionUuid}`;
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.principal !== undefined;
    const rows = await this.dataSource.query(
      'SELECT 1 FROM portal_sessions WHERE uuid = $1 AND revoked_at IS NULL AND expires_at > now()',
      [sessionUuid],
    );
    const principal = rows.length ? ({ sessionUuid } as PortalPrincipal) : undefined;
    this.cache.set(key, { principal, until: Date.now() + CACHE_MS });
    return principal !== undefined;
  }

  async companyName(uuid: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query('SELECT name FROM companies WHERE uuid = $1', [uuid]);
    return row?.name;
  }
}

/**
 * The Set-Cookie of a session: HttpOnly (no script reads it), Secure and SameSite=None (sent inside the
 * platform's frame, a third-party context), Partitioned (kept per embedding site, so browsers that block
 * third-party cookies keep it and no other site's frame gets it). Path=/: the console calls the api
 * under every extension's namespace.
 */
export function portalSetCookie(value: string, maxAgeSeconds: number): string {
  return `${PORTAL_COOKIE}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; Secure; SameSite=None; Partitioned`;
}
