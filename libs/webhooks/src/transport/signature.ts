import { createHmac } from 'node:crypto';
import { REDACTED } from './endpoint-auth';

/** How a Standard Webhooks secret is written: this prefix, then its bytes in base64. */
export const SECRET_PREFIX = 'whsec_';

/** `v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`, keyed with the secret's decoded bytes. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of a message: its id, its timestamp and its signature by each secret. */
export function signatureHeaders(secrets: string[], id: string, body: string, at: Date) {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}

/**
 * A message's headers (JSON, then `plain`, then the Standard Webhooks ones) and the same as logged: the
 * signature and every `secret` header (a receiver's credentials) redacted. HTTP, brokers and listen alike.
 */
export function signedHeaders(
  secrets: string[],
  message: { id: string; body: string; at: Date },
  plain: Record<string, string> = {},
  secret: Record<string, string> = {},
) {
  const headers: Record<string, string> = {
    ...secret,
    'content-type': 'application/json',
    ...plain,
    ...signatureHeaders(secrets, message.id, message.body, message.at),
  };
  const logged: Record<string, string> = { ...headers, 'webhook-signature': REDACTED };
  for (const name in secret) logged[name] = REDACTED;
  return { headers, logged };
}
