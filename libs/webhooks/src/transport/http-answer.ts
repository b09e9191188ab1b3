import { Readable } from 'node:stream';
import { MAX_LOGGED_BODY } from '../tuning';
import { BlockedTargetError } from './blocked-target.error';
import { Refusal } from './target-policy';

/** How an HTTP answer (or the lack of one) is read into an attempt: headers, capped body, error names. */

export function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

/** A URL as dispatched: why the policy refuses it, or where to send. */
export interface Target {
  refusal: Refusal;
  origin: string;
  path: string;
}

/** What came back (or why nothing did). */
export interface Answer {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  durationMs: number;
  error: string | null;
  ok: boolean;
  retryAfterMs?: number;
  permanent: boolean;
}

export const NO_ANSWER = { status: null, headers: null, body: null, ok: false, retryAfterMs: undefined };

/** The attempt ran past WEBHOOKS_TIMEOUT_MS while its answer was still arriving. */
export class DeadlineError extends Error {
  readonly code = 'WHARF_DEADLINE';
}

export function describeError(error: unknown): string {
  if (error instanceof BlockedTargetError) return `blocked: ${error.message}`;
  const err = error as { code?: string; cause?: { code?: string }; message?: string };
  const code = err.code ?? err.cause?.code;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns';
    case 'ECONNREFUSED':
      return 'refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'WHARF_DEADLINE':
      return 'timeout';
    default:
      if (code && /CERT|SSL|TLS/.test(code)) return `tls: ${code}`;
      return code ?? err.message ?? 'error';
  }
}

export function retryAfter(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * The response body as text, at most MAX_LOGGED_BODY bytes of it (the rest is not read), unless it is still
 * arriving at `deadline`. NUL becomes U+FFFD: PostgreSQL text cannot hold it, and one such answer must not
 * sink the batch of log rows it is written with.
 */
export function readCapped(body: Readable, deadline: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      body.off('data', onData).off('end', done);
      const text = Buffer.concat(chunks, Math.min(size, MAX_LOGGED_BODY)).toString('utf8');
      resolve(text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text);
    };
    const onData = (chunk: Buffer) => {
      if (performance.now() > deadline) {
        body.off('data', onData).off('end', done);
        body.destroy();
        reject(new DeadlineError('the answer was still arriving when the attempt timed out'));
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_LOGGED_BODY) {
        body.destroy();
        done();
      }
    };
    body.on('data', onData).once('end', done).once('error', reject);
  });
}
