import { ErrorObject, attributePointer, errorObject } from '@wharf/core';
import { EndpointAuth, REDACTED, SECRET_AUTH_FIELDS } from '../transport/endpoint-auth';
import { AppKeys, openSecret } from './secrets';

interface SealedCredentials {
  headers_sealed: string | null;
  auth_sealed: string | null;
}

/**
 * An endpoint's sealed headers and auth, opened with APP_KEY or APP_KEY_PREVIOUS. When no key opens one,
 * nothing is sent (as for a secret no key opens): `unreadableSecret` says why, and the attempt is retried.
 */
export function openCredentials(
  row: SealedCredentials,
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

/**
 * A write sends back what it was shown: a header whose value is "[redacted]" keeps its stored value, and an
 * auth of the stored type without a secret field (or with "[redacted]" in it) keeps the stored secret. A
 * "[redacted]" with nothing stored to keep (a new header, a create, a value no key opens) is refused.
 */
export function keepStoredCredentials(
  values: Record<string, unknown>,
  stored: SealedCredentials | undefined,
  keys: AppKeys,
): ErrorObject[] {
  const opened = (sealed: keyof SealedCredentials) =>
    stored?.[sealed]
      ? openCredentials({ headers_sealed: null, auth_sealed: null, [sealed]: stored[sealed] }, keys)
      : {};
  const errors: ErrorObject[] = [];
  const headers = values.headers;
  if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
    const redacted = Object.keys(headers).filter(
      (name) => (headers as Record<string, unknown>)[name] === REDACTED,
    );
    const before = redacted.length ? (opened('headers_sealed').headers ?? {}) : {};
    const byName = new Map(Object.entries(before).map(([name, value]) => [name.toLowerCase(), value]));
    const kept: Record<string, unknown> = { ...headers };
    for (const name of redacted) {
      const value = byName.get(name.toLowerCase());
      if (value !== undefined) kept[name] = value;
      else
        errors.push(
          errorObject(422, `Header "${name}" has no stored value to keep: send its value.`, {
            source: { pointer: attributePointer('headers', name) },
          }),
        );
    }
    values.headers = kept;
  }
  const auth = values.auth as Record<string, unknown> | null | undefined;
  if (auth && typeof auth === 'object' && !Array.isArray(auth) && typeof auth.type === 'string') {
    const secretFields = SECRET_AUTH_FIELDS[auth.type] ?? [];
    const missing = secretFields.filter((field) => auth[field] === undefined || auth[field] === REDACTED);
    const before = missing.length ? opened('auth_sealed').auth : undefined;
    if (before?.type === auth.type) {
      const storedFields = before as unknown as Record<string, unknown>;
      values.auth = { ...auth, ...Object.fromEntries(missing.map((field) => [field, storedFields[field]])) };
    } else
      for (const field of missing.filter((name) => auth[name] === REDACTED))
        errors.push(
          errorObject(422, `auth.${field} has no stored value to keep (the type changed): send it.`, {
            source: { pointer: attributePointer('auth', field) },
          }),
        );
  }
  return errors;
}
