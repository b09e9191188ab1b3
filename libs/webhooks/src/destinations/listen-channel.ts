import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, createFailFastRedis, createRedis } from '@wharf/core';
import { Cluster, Redis } from 'ioredis';
import { LISTEN_READ_BATCH, LISTEN_SESSION_GRACE_MS, LISTEN_STREAM_MAXLEN } from '../tuning';
import { ListenAnswer, ListenDelivery, ListenEntry, entryOf, fieldsOf } from './listen-entry';

type Client = Redis | Cluster;

/**
 * The way between a listen session's sends and the api process streaming the session to its CLI, through
 * Redis, so that any worker (or the api's test sends) can send and any api process can stream:
 *
 * - a send adds an entry to the session's stream (its id is the SSE event id, so a reconnect with
 *   Last-Event-ID resumes exactly after the last entry the CLI got) naming the reply channel of its process;
 * - the api reads the stream for the CLI and hands the CLI's answer to that channel;
 * - the sending process matches the answer to its waiting send by the entry's attempt id.
 *
 * An answer that comes too late (or is lost with a connection) leaves the send to time out, a failed
 * attempt retried as any other.
 */
@Injectable()
export class ListenChannel implements OnApplicationShutdown {
  private redis?: Client;
  private subscriber?: Client;
  private subscribed?: Promise<unknown>;
  private readonly replyTo = `${this.config.queuePrefix}:listen-replies:${randomUUID()}`;
  private readonly waiting = new Map<string, (answer: ListenAnswer) => void>();
  private readonly readers = new Set<Client>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private client(): Client {
    this.redis ??= createFailFastRedis(this.config, 'listen');
    return this.redis;
  }

  private streamKey(session: string): string {
    return `${this.config.queuePrefix}:listen:${session}:stream`;
  }

  private aliveKey(session: string): string {
    return `${this.config.queuePrefix}:listen:${session}:alive`;
  }

  /** Subscribes this process to its reply channel once, before its first send waits on it. */
  private listenForReplies(): Promise<unknown> {
    if (!this.subscribed) {
      const subscriber = (this.subscriber = createRedis(this.config, 'listen-replies'));
      subscriber.on('message', (_channel: string, text: string) => {
        try {
          const { attempt, ...answer } = JSON.parse(text) as ListenAnswer & { attempt: string };
          this.waiting.get(attempt)?.(answer);
        } catch {
          // not one of ours: ignored
        }
      });
      this.subscribed = subscriber.subscribe(this.replyTo).catch((error: unknown) => {
        this.subscribed = undefined;
        subscriber.disconnect();
        throw error;
      });
    }
    return this.subscribed;
  }

  /**
   * Puts a delivery on the session's stream and waits for the CLI's answer until `deadline`; undefined when
   * none came in time. Throws when Redis cannot be reached.
   */
  async send(session: string, delivery: ListenDelivery): Promise<ListenAnswer | undefined> {
    await this.listenForReplies();
    const attempt = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<ListenAnswer | undefined>((resolve) => {
      this.waiting.set(attempt, resolve);
      timer = setTimeout(() => resolve(undefined), Math.max(0, delivery.deadline - Date.now()));
    });
    try {
      const key = this.streamKey(session);
      await this.client()
        .multi()
        .xadd(
          key,
          'MAXLEN',
          '~',
          LISTEN_STREAM_MAXLEN,
          '*',
          'attempt',
          attempt,
          'reply_to',
          this.replyTo,
          'event',
          delivery.event,
          'event_id',
          delivery.event_id,
          'headers',
          JSON.stringify(delivery.headers),
          'body',
          delivery.body,
          'deadline',
          String(delivery.deadline),
        )
        .pexpire(key, LISTEN_SESSION_GRACE_MS)
        .exec();
      return await answered;
    } finally {
      clearTimeout(timer);
      this.waiting.delete(attempt);
    }
  }

  /**
   * The session's entries after `after` (an entry id; `0`: from the start), waiting up to `blockMs` for
   * one on `reader` (a connection of its own: the read blocks it).
   */
  async read(reader: Client, session: string, after: string, blockMs: number): Promise<ListenEntry[]> {
    const answer = await reader.xread(
      'COUNT',
      LISTEN_READ_BATCH,
      'BLOCK',
      blockMs,
      'STREAMS',
      this.streamKey(session),
      after,
    );
    return (answer?.[0]?.[1] ?? []).map(([id, flat]) => entryOf(id, flat));
  }

  /** A connection for one stream's blocking reads; closed by `closeReader`. */
  reader(): Client {
    const reader = createRedis(this.config, 'listen-stream');
    this.readers.add(reader);
    return reader;
  }

  closeReader(reader: Client): void {
    this.readers.delete(reader);
    reader.disconnect();
  }

  /**
   * Hands the CLI's answer to the entry `id` to the send waiting for it: false when no process waits any
   * more (it timed out), undefined when the session's stream has no such entry.
   */
  async answer(session: string, id: string, answer: ListenAnswer): Promise<boolean | undefined> {
    const redis = this.client();
    const [entry] = (await redis.xrange(this.streamKey(session), id, id)) as [string, string[]][];
    if (!entry) return undefined;
    const fields = fieldsOf(entry[1]);
    const receivers = await redis.publish(
      fields.reply_to,
      JSON.stringify({ attempt: fields.attempt, ...answer }),
    );
    return receivers > 0;
  }

  /** Marks the session alive for the grace period (its stream is open, or it was just opened). */
  async touch(session: string): Promise<void> {
    await this.client().set(this.aliveKey(session), '1', 'PX', LISTEN_SESSION_GRACE_MS);
  }

  /** Which of `sessions` were marked alive within the grace period. */
  async alive(sessions: string[]): Promise<Set<string>> {
    const redis = this.client();
    const marks = await Promise.all(sessions.map((session) => redis.exists(this.aliveKey(session))));
    return new Set(sessions.filter((_, i) => marks[i] === 1));
  }

  /** Forgets an ended session's stream and mark. */
  async end(session: string): Promise<void> {
    const redis = this.client();
    await Promise.all([redis.del(this.streamKey(session)), redis.del(this.aliveKey(session))]);
  }

  onApplicationShutdown(): void {
    for (const reader of this.readers) reader.disconnect();
    this.subscriber?.disconnect();
    this.redis?.disconnect();
  }
}
