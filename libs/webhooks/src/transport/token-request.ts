import type { Agent } from 'undici';
import { MAX_LOGGED_BODY } from '../tuning';
import { describeError } from './http-answer';

/** What a token endpoint answered: a token and its lifetime, or why there is none (never a secret). */
export type TokenAnswer = { token: string; expiresInMs?: number } | { error: string };

/**
 * POSTs an OAuth2 client-credentials grant (RFC 6749 §4.4, client authenticated with HTTP Basic) through the
 * guarded dispatcher, so the token URL is held to the same connect-time target policy as endpoints.
 */
export async function requestToken(
  dispatcher: Agent,
  url: URL,
  auth: { client_id: string; client_secret: string; scope?: string; audience?: string },
  timeoutMs: number,
): Promise<TokenAnswer> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (auth.scope) form.set('scope', auth.scope);
  if (auth.audience) form.set('audience', auth.audience);
  const basic = Buffer.from(
    `${encodeURIComponent(auth.client_id)}:${encodeURIComponent(auth.client_secret)}`,
  ).toString('base64');
  try {
    const response = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${basic}`,
      },
      body: form.toString(),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = (await response.body.text()).slice(0, MAX_LOGGED_BODY);
    if (response.statusCode !== 200) return { error: `token endpoint answered ${response.statusCode}` };
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      return { error: 'token endpoint answered 200 without JSON' };
    }
    if (typeof parsed.access_token !== 'string' || !parsed.access_token)
      return { error: 'token endpoint answered 200 without an access_token' };
    const expiresIn = Number(parsed.expires_in);
    return {
      token: parsed.access_token,
      expiresInMs: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : undefined,
    };
  } catch (error) {
    return { error: `token endpoint: ${describeError(error)}` };
  }
}
