import { AppKeys, UnreadableSecretError, openSecret } from './secrets';

/** The secret columns of a stored endpoint (still encrypted). */
export interface SealedEndpoint {
  uuid: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  /** The endpoint's sealed headers, auth and config, when the caller read them: resealed with the secrets. */
  headers_sealed?: string | null;
  auth_sealed?: string | null;
  config_sealed?: string | null;
}

/** The other sealed columns of an endpoint, written back under APP_KEY like its secrets. */
const SEALED_COLUMNS = ['headers_sealed', 'auth_sealed', 'config_sealed'] as const;

/** The secrets an endpoint signs with: the current one, then the previous one while its grace lasts. */
export interface OpenedSecrets {
  current: string;
  previous?: string;
  /** When the previous secret stops being valid (ms since the epoch), 0 when there is none. */
  previousExpires: number;
  /** The stored ciphertexts were rewritten under APP_KEY (one of them was opened with APP_KEY_PREVIOUS). */
  rewritten: boolean;
}

export type RunSql = (sql: string, params: unknown[]) => Promise<unknown>;

/**
 * Opens an endpoint's secrets with APP_KEY or APP_KEY_PREVIOUS, and writes back under APP_KEY any opened with
 * the previous key (compare-and-set on the old ciphertext; `updated_at` is left alone: nothing a client sees
 * changed). A previous secret no key opens is dropped; a current one throws UnreadableSecretError.
 */
export async function openEndpointSecrets(
  endpoint: SealedEndpoint,
  keys: AppKeys,
  run: RunSql,
): Promise<OpenedSecrets> {
  const current = openSecret(endpoint.secret, keys);
  if (!current) throw new UnreadableSecretError(endpoint.uuid);
  const previous = endpoint.previous_secret ? openSecret(endpoint.previous_secret, keys) : undefined;
  const credentials = SEALED_COLUMNS.flatMap((column) => {
    const stored = endpoint[column];
    const resealed = stored ? openSecret(stored, keys)?.resealed : undefined;
    return resealed === undefined ? [] : [{ column, stored, resealed }];
  });
  const rewritten =
    current.resealed !== undefined || previous?.resealed !== undefined || credentials.length > 0;
  if (rewritten) {
    const params: unknown[] = [
      endpoint.uuid,
      current.resealed ?? endpoint.secret,
      previous ? (previous.resealed ?? endpoint.previous_secret) : null,
      endpoint.secret,
      endpoint.previous_secret,
    ];
    const set = credentials.map(({ column, resealed }) => `, ${column} = $${params.push(resealed)}`).join('');
    const same = credentials.map(({ column, stored }) => ` AND ${column} = $${params.push(stored)}`).join('');
    await run(
      `UPDATE webhook_endpoints SET secret = $2, previous_secret = $3${set}
       WHERE uuid = $1 AND secret = $4 AND previous_secret IS NOT DISTINCT FROM $5${same}`,
      params,
    );
  }
  const expires = endpoint.previous_secret_expires_at
    ? new Date(endpoint.previous_secret_expires_at).getTime()
    : 0;
  return {
    current: current.secret,
    previous: previous?.secret,
    previousExpires: previous ? expires : 0,
    rewritten,
  };
}

/** The secrets valid right now, in signing order. */
export function validSecrets(opened: OpenedSecrets, now = Date.now()): string[] {
  return opened.previous !== undefined && opened.previousExpires > now
    ? [opened.current, opened.previous]
    : [opened.current];
}
