import { EndpointAuth } from '../transport/endpoint-auth';
import { AppKeys, openSecret } from './secrets';

/**
 * An endpoint's sealed headers and auth, opened with APP_KEY or APP_KEY_PREVIOUS. When no key opens one,
 * nothing is sent (as for a secret no key opens): `unreadableSecret` says why, and the attempt is retried.
 */
export function openCredentials(
  row: { headers_sealed: string | null; auth_sealed: string | null },
  keys: AppKeys,
): { headers?: Record<string, string>; auth?: EndpointAuth; unreadableSecret?: string } {
  let unreadable = false;
  const open = (sealed: string | null) => {
    const opened = sealed ? openSecret(sealed, keys) : undefined;
    if (sealed && !opened) unreadable = true;
    return opened ? (JSON.parse(opened.secret) as unknown) : undefined;
  };
  const headers = open(row.headers_sealed) as Record<string, string> | undefined;
  const auth = open(row.auth_sealed) as EndpointAuth | undefined;
  if (unreadable)
    return { unreadableSecret: 'its headers or auth cannot be decrypted with APP_KEY or APP_KEY_PREVIOUS' };
  return { headers, auth };
}
