import { ErrorObject, attributePointer, errorObject } from '@wharf/core';
import { AUTH_TYPES, EndpointAuth, REDACTED, publicAuth } from '../transport/endpoint-auth';
import { encryptSecret } from './secrets';

export const MAX_HEADERS = 20;
export const MAX_HEADER_VALUE = 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** Set by the sender, or by HTTP itself; Authorization comes from `auth`. */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'authorization',
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

const FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  none: { required: [], optional: [] },
  basic: { required: ['username', 'password'], optional: [] },
  bearer: { required: ['token'], optional: [] },
  oauth2_client_credentials: {
    required: ['token_url', 'client_id', 'client_secret'],
    optional: ['scope', 'audience'],
  },
};

const problem = (detail: string, ...path: string[]) =>
  errorObject(422, detail, { source: { pointer: attributePointer(...path) } });

function headerProblems(headers: unknown): ErrorObject[] {
  if (headers === null) return [];
  if (typeof headers !== 'object' || Array.isArray(headers))
    return [problem('headers is an object of header names to string values.', 'headers')];
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) return [problem(`At most ${MAX_HEADERS} headers.`, 'headers')];
  const errors: ErrorObject[] = [];
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) errors.push(problem(`"${name}" is not a valid header name.`, 'headers', name));
    else if (RESERVED.has(lower) || lower.startsWith('webhook-'))
      errors.push(
        problem(
          `"${name}" is reserved: the sender sets it (webhook-*, content-*, host, user-agent, hop-by-hop), ` +
            'and Authorization comes from auth.',
          'headers',
          name,
        ),
      );
    else if (
      typeof value !== 'string' ||
      Buffer.byteLength(value) > MAX_HEADER_VALUE ||
      /[\r\n\0]/.test(value)
    )
      errors.push(
        problem(
          `A header value is a string of at most ${MAX_HEADER_VALUE} bytes, without line breaks.`,
          'headers',
          name,
        ),
      );
  }
  return errors;
}

function authProblems(auth: unknown, refusal: (url: string) => string | undefined): ErrorObject[] {
  if (auth === null) return [];
  const record = auth as Record<string, unknown>;
  if (typeof auth !== 'object' || Array.isArray(auth) || !FIELDS[record.type as string])
    return [problem(`auth.type is one of ${AUTH_TYPES.join(', ')}.`, 'auth', 'type')];
  const { required, optional } = FIELDS[record.type as string];
  const errors: ErrorObject[] = [];
  for (const key of Object.keys(record))
    if (key !== 'type' && !required.includes(key) && !optional.includes(key))
      errors.push(
        problem(`auth of type ${String(record.type)} has no field ${JSON.stringify(key)}.`, 'auth', key),
      );
  for (const key of [...required, ...optional]) {
    const value = record[key];
    if (value === undefined && optional.includes(key)) continue;
    if (typeof value !== 'string' || !value.length || value.length > 2048 || /[\r\n\0]/.test(value))
      errors.push(problem(`auth.${key} is a non-empty string of at most 2048 characters.`, 'auth', key));
  }
  if (record.type === 'basic' && typeof record.username === 'string' && record.username.includes(':'))
    errors.push(problem('A basic auth username cannot contain ":".', 'auth', 'username'));
  if (typeof record.token_url === 'string' && !errors.length) {
    const refused = refusal(record.token_url);
    if (refused) errors.push(problem(`The token URL is not allowed: ${refused}.`, 'auth', 'token_url'));
  }
  return errors;
}

/**
 * Checks the headers and auth of an endpoint write and seals them: the values go encrypted with APP_KEY
 * into headers_sealed / auth_sealed, and the visible columns keep only the header names (values redacted)
 * and the auth's type and non-secret fields.
 */
export function sealCredentials(
  values: Record<string, unknown>,
  appKey: Buffer,
  refusal: (url: string) => string | undefined,
): ErrorObject[] {
  const errors = [
    ...(values.headers !== undefined ? headerProblems(values.headers) : []),
    ...(values.auth !== undefined ? authProblems(values.auth, refusal) : []),
  ];
  if (errors.length) return errors;
  if (values.headers !== undefined) {
    const headers = values.headers as Record<string, string> | null;
    const empty = !headers || !Object.keys(headers).length;
    values.headers_sealed = empty ? null : encryptSecret(JSON.stringify(headers), appKey);
    values.headers = empty ? null : Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
  }
  if (values.auth !== undefined) {
    const auth = values.auth as EndpointAuth | null;
    const none = !auth || auth.type === 'none';
    values.auth_sealed = none ? null : encryptSecret(JSON.stringify(auth), appKey);
    values.auth = none ? null : publicAuth(auth);
  }
  return [];
}
