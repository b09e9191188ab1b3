import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, createFailFastRedis } from '@wharf/core';
import { Cluster, Redis } from 'ioredis';
import {
  OAUTH2_DEFAULT_TTL_MS,
  OAUTH2_FETCH_LOCK_MS,
  OAUTH2_TOKEN_MARGIN_MS,
  OAUTH2_WAIT_POLL_MS,
} from '../tuning';
import { EndpointAuth } from './endpoint-auth';
import { targetPolicyOf, urlRefusal } from './target-policy';
import { TokenAnswer, requestToken } from './token-request';
import { WebhookSender } from './webhook-sender';

type OAuth2 = Extract<EndpointAuth, { type: 'oauth2_client_credentials' }>;

/** Deletes the token only if it is still the one that was refused: a newer one another worker got stays. */
const DELETE_IF = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * OAuth2 client-credentials tokens of endpoints, shared by every worker through Redis: cached until
 * expires_in less a margin, fetched by one worker at a time (a lock in Redis; the others wait for its
 * token), and in each worker by one send at a time. The cache key covers the credentials, so changing them
 * takes a new token at once.
 */
@Injectable()
export class OAuth2Tokens implements OnApplicationShutdown {
  private redis?: Redis | Cluster;
  private readonly fetching = new Map<string, Promise<TokenAnswer>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: WebhookSender,
  ) {}

  /** Fails fast while Redis is away (the attempt is then retried), on a cluster too. */
  private client(): Redis | Cluster {
    this.redis ??= createFailFastRedis(this.config, 'oauth2-tokens');
    return this.redis;
  }

  private key(endpoint: string, auth: OAuth2): string {
    const credentials = [auth.token_url, auth.client_id, auth.client_secret, auth.scope, auth.audience];
    const digest = createHash('sha256').update(JSON.stringify(credentials)).digest('hex').slice(0, 24);
    return `${this.config.queuePrefix}:oauth2:${endpoint}:${digest}`;
  }

  /** The endpoint's current token, fetched when none is cached. */
  async token(endpoint: string, auth: OAuth2): Promise<TokenAnswer> {
    const key = this.key(endpoint, auth);
    const cached = await this.client().get(key);
    if (cached) return { token: cached };
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = this.fetchShared(key, auth).finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return pending;
  }

  /** The receiver refused `stale` (401): forget it, unless another worker replaced it already, and get one. */
  async refresh(endpoint: string, auth: OAuth2, stale: string): Promise<TokenAnswer> {
    await this.client().eval(DELETE_IF, 1, this.key(endpoint, auth), stale);
    return this.token(endpoint, auth);
  }

  private async fetchShared(key: string, auth: OAuth2): Promise<TokenAnswer> {
    const redis = this.client();
    const lock = `${key}:lock`;
    const owner = randomUUID();
    const deadline = Date.now() + OAUTH2_FETCH_LOCK_MS;
    while (Date.now() < deadline) {
      if (await redis.set(lock, owner, 'PX', OAUTH2_FETCH_LOCK_MS, 'NX')) {
        try {
          // Another worker may have fetched and released the lock since this one missed the cache.
          const fetched = await redis.get(key);
          if (fetched) return { token: fetched };
          const answer = await this.fetch(auth);
          if ('token' in answer) {
            const life = answer.expiresInMs ?? OAUTH2_DEFAULT_TTL_MS;
            const ttl = Math.max(Math.floor(life / 2), life - OAUTH2_TOKEN_MARGIN_MS);
            await redis.set(key, answer.token, 'PX', ttl);
          }
          return answer;
        } finally {
          await redis.eval(DELETE_IF, 1, lock, owner);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, OAUTH2_WAIT_POLL_MS));
      const cached = await redis.get(key);
      if (cached) return { token: cached };
    }
    return { error: 'token endpoint: another worker is still fetching the token' };
  }

  private async fetch(auth: OAuth2): Promise<TokenAnswer> {
    const refusal = urlRefusal(auth.token_url, targetPolicyOf(this.config));
    if (refusal) return { error: `token URL blocked: ${refusal}` };
    const dispatcher = await this.sender.prepare();
    return requestToken(dispatcher, new URL(auth.token_url), auth, this.config.webhooks.timeoutMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis?.quit().catch(() => undefined);
  }
}
