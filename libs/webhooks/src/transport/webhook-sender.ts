import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import type { Agent } from 'undici';
import { TARGET_CACHE_SIZE } from '../tuning';
import { signedHeaders } from './signature';
import { BlockedTargetError } from './blocked-target.error';
import { Attempt } from './destination';
import { Answer, NO_ANSWER, Target, describeError, flatHeaders, readCapped, retryAfter } from './http-answer';
import { targetPolicyOf, urlRefusal } from './target-policy';

export { MAX_LOGGED_BODY } from '../tuning';
export type { Attempt } from './destination';

const USER_AGENT = 'Wharf-Webhooks/1.0';

export interface EndpointSecrets {
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
}

/**
 * Sends one signed POST (Standard Webhooks) and reports what happened. Shared by the worker's delivery
 * processor and the api's "send test event"; the bytes signed are the bytes sent and logged.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  /**
   * Made at the first send: undici holds megabytes of heap, and the api sends only when a user tests an
   * endpoint.
   */
  private dispatcher?: Agent;
  private readonly policy = targetPolicyOf(this.config);
  /** Parsed and checked once per URL: the policy is fixed for the process, and a worker sends to few URLs. */
  private readonly targets = new Map<string, Target>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * Makes the dispatcher now, for a process that is about to send (the worker): loading undici at the first
   * send would hold a fresh worker's first attempts until it was loaded and then let them out together,
   * bunching sends that a rate limit had spaced.
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

  /**
   * Sends with already-decrypted secrets (the worker caches them per endpoint); `extra` headers (the
   * endpoint's own, Authorization) are sent as given and logged redacted.
   */
  async sendSigned(
    url: string,
    secrets: string[],
    eventId: string,
    body: string,
    extra: Record<string, string> = {},
  ): Promise<Attempt> {
    const sentAt = new Date();
    const { headers, logged } = signedHeaders(
      secrets,
      { id: eventId, body, at: sentAt },
      { 'user-agent': USER_AGENT },
      extra,
    );
    const target = this.target(url);
    const answer: Answer = target.refusal
      ? { ...NO_ANSWER, durationMs: 0, error: `blocked: ${target.refusal}`, permanent: true }
      : await this.post(target, headers, body);
    return {
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
    };
  }

  /** POSTs `body` to the (allowed) target and reads the answer, within the timeout. */
  private async post(target: Target, headers: Record<string, string>, body: string): Promise<Answer> {
    let started = performance.now();
    // The limit without an AbortSignal, which costs undici about as much CPU as the rest of the request:
    // the connector and headersTimeout bound the wait for an answer, readCapped the time to read it, and an
    // answer complete only after the limit is a timeout whatever its status.
    const timeoutMs = this.config.webhooks.timeoutMs;
    try {
      const dispatcher = this.dispatcher ?? (await this.prepare());
      // Loading undici (the api's first test send) is not the target's time: on a busy machine it can take
      // longer than a short limit.
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
      return {
        status,
        headers: flatHeaders(response.headers),
        body: responseBody,
        durationMs,
        error: durationMs > timeoutMs ? 'timeout' : null,
        ok: status >= 200 && status < 300 && durationMs <= timeoutMs,
        retryAfterMs:
          status === 429 || status === 503 ? retryAfter(response.headers['retry-after']) : undefined,
        permanent: status === 410,
      };
    } catch (error) {
      return {
        ...NO_ANSWER,
        durationMs: performance.now() - started,
        error: describeError(error),
        permanent: error instanceof BlockedTargetError,
      };
    }
  }

  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const refusal = urlRefusal(url, this.policy);
      const parsed = refusal ? undefined : new URL(url);
      target = { refusal, origin: parsed?.origin ?? '', path: parsed ? parsed.pathname + parsed.search : '' };
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.clear();
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
