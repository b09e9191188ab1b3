import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { Readable } from 'node:stream';
import type { Agent } from 'undici';
import { sign } from './signature';
import { MAX_LOGGED_BODY } from '../tuning';
import { BlockedTargetError } from './blocked-target.error';
import { Attempt } from './destination';
import { Refusal, urlRefusal } from './target-policy';

export { MAX_LOGGED_BODY } from '../tuning';
export type { Attempt } from './destination';

const USER_AGENT = 'Wharf-Webhooks/1.0';

export interface EndpointSecrets {
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

/** A URL as dispatched: why the policy refuses it, or where to send. */
interface Target {
  refusal: Refusal;
  origin: string;
  path: string;
}

/** What came back (or why nothing did). */
interface Answer {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  durationMs: number;
  error: string | null;
  ok: boolean;
  retryAfterMs?: number;
  permanent: boolean;
}

const NO_ANSWER = { status: null, headers: null, body: null, ok: false, retryAfterMs: undefined };

/** The attempt ran past WEBHOOKS_TIMEOUT_MS while its answer was still arriving. */
class DeadlineError extends Error {
  readonly code = 'WHARF_DEADLINE';
}

function describe(error: unknown): string {
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

function retryAfter(header: string | string[] | undefined): number | undefined {
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
function readCapped(body: Readable, deadline: number): Promise<string> {
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

/**
 * Sends one signed POST (Standard Webhooks) and reports what happened. Shared by the worker's delivery
 * processor and the api's "send test event"; the bytes signed are the bytes sent and logged.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  /**
   * Made at the first send: undici holds about 5 MB of heap, and the api sends only when a user tests an
   * endpoint.
   */
  private dispatcher?: Agent;
  private readonly policy = {
    httpsOnly: this.config.nodeEnv === 'production',
    allowPrivate: this.config.webhooks.allowPrivateTargets,
  };
  /** Parsed and checked once per URL: the policy is fixed for the process, and a worker sends to few URLs. */
  private readonly targets = new Map<string, Target>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Makes the dispatcher now, for a process that is about to send (the worker): loading undici at the first
   * send held a fresh worker's first attempts until it was loaded (over 100 ms on a busy machine) and then
   * let them out together, bunching sends that a rate limit had spaced.
   */
  async prepare(): Promise<Agent> {
    if (!this.dispatcher) {
      const { createGuardedDispatcher } = await import('./guarded-dispatcher');
      this.dispatcher ??= createGuardedDispatcher({
        allowPrivate: this.config.webhooks.allowPrivateTargets,
        restrictPorts: this.config.nodeEnv === 'production',
        timeoutMs: this.config.webhooks.timeoutMs,
      });
    }
    return this.dispatcher;
  }

  /** An attempt that never left: nothing sent, `error` says why (e.g. a secret no key opens). */
  unsent(url: string, body: string, error: string, permanent: boolean): Attempt {
    return {
      url,
      request_headers: {},
      request_body: body,
      response_status: null,
      response_headers: null,
      response_body: null,
      duration_ms: 0,
      error,
      status: 'failed',
      sent_at: new Date(),
      permanent,
    };
  }

  /** Sends with already-decrypted secrets (the worker caches them per endpoint). */
  async sendSigned(url: string, secrets: string[], eventId: string, body: string): Promise<Attempt> {
    const sentAt = new Date();
    const timestamp = Math.floor(sentAt.getTime() / 1000);
    const signature = secrets.map((secret) => sign(secret, eventId, timestamp, body)).join(' ');
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    const logged = { ...headers, 'webhook-signature': '[redacted]' };
    let started = performance.now();
    const attempt = (answer: Answer): Attempt => ({
      url,
      request_headers: logged,
      request_body: body,
      sent_at: sentAt,
      response_status: answer.status,
      response_headers: answer.headers,
      response_body: answer.body,
      duration_ms: Math.round(answer.durationMs),
      error: answer.error,
      status: answer.ok ? 'successful' : 'failed',
      retryAfterMs: answer.retryAfterMs,
      permanent: answer.permanent,
    });
    const target = this.target(url);
    if (target.refusal) {
      return attempt({ ...NO_ANSWER, durationMs: 0, error: `blocked: ${target.refusal}`, permanent: true });
    }
    // The limit without an AbortSignal, which costs undici about as much CPU as the rest of the request:
    // the connector and headersTimeout bound the wait for an answer, readCapped the time to read it, and an
    // answer complete only after the limit is a timeout whatever its status.
    const timeoutMs = this.config.webhooks.timeoutMs;
    try {
      const dispatcher = this.dispatcher ?? (await this.prepare());
      // Loading undici (the api's first test send) is not the target's time: on a busy CI machine it took
      // longer than a 400 ms limit and failed a local 200.
      started = performance.now();
      const response = await dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const responseBody = await readCapped(response.body, started + timeoutMs);
      const status = response.statusCode;
      const durationMs = performance.now() - started;
      return attempt({
        status,
        headers: flatHeaders(response.headers),
        body: responseBody,
        durationMs,
        error: durationMs > timeoutMs ? 'timeout' : null,
        ok: status >= 200 && status < 300 && durationMs <= timeoutMs,
        retryAfterMs:
          status === 429 || status === 503 ? retryAfter(response.headers['retry-after']) : undefined,
        permanent: status === 410,
      });
    } catch (error) {
      return attempt({
        ...NO_ANSWER,
        durationMs: performance.now() - started,
        error: describe(error),
        permanent: error instanceof BlockedTargetError,
      });
    }
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const refusal = urlRefusal(url, this.policy);
      const parsed = refusal ? undefined : new URL(url);
      target = { refusal, origin: parsed?.origin ?? '', path: parsed ? parsed.pathname + parsed.search : '' };
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** Cuts every request in flight (a shutdown that stopped waiting for them). */
  async abort(): Promise<void> {
    if (this.dispatcher && !this.dispatcher.destroyed) await this.dispatcher.destroy();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.dispatcher || this.dispatcher.destroyed) return;
    await this.dispatcher.close();
  }
}
