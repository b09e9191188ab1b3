import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig, OutageMonitor, listenOn } from '@wharf/core';
import type { Client } from 'pg';
import { ACTIVITY_CHANNEL } from '../migrations/1700000000116-notify-activity';
import { forgetOld, parseNotice } from './activity-notice';
import { RequestLogStore, StreamPosition, StreamRow } from '../store/request-logs.store';
import { positionOf, rowEvent } from './activity.sql';
import { StreamClient } from './stream-client';

const PAGE = 500;
const HEARTBEAT_MS = 15_000;
/** Rows already sent are remembered this long, so a batch read twice is sent once. */
const SEEN_MS = 10 * 60_000;

interface Feed {
  clients: Set<StreamClient>;
  seen: Map<string, number>;
  /** The earliest sent_at (epoch ms) of the batches notified and not yet read. */
  since?: number;
  /** The newest sent_at sent (epoch ms): where a catch-up after a lost LISTEN starts. */
  newest?: number;
  reading?: Promise<void>;
}

/**
 * The live activity of every stream client of this api process, from ONE LISTEN connection: a batch's
 * NOTIFY names its companies, and each company with clients has its new rows read once (one query per batch,
 * whatever the number of its clients) and written, serialized once, to every client. Idle clients cost a
 * socket and a heartbeat comment; the heartbeat also ends streams whose key or session is gone.
 */
@Injectable()
export class ActivityHub implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('activity');
  private readonly feeds = new Map<string, Feed>();
  private listener?: Client;
  private connecting?: Promise<Client>;
  private heartbeat?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly logs: RequestLogStore,
    private readonly outages: OutageMonitor,
  ) {}

  /** Opens the LISTEN connection if it is not open (an outage rejects, which the route answers 503). */
  async ready(): Promise<void> {
    if (this.listener) return;
    this.connecting ??= this.listen().finally(() => (this.connecting = undefined));
    await this.connecting;
  }

  /** Adds a client, then replays what it missed since `lastEventId` (a reconnect). */
  async subscribe(client: StreamClient, lastEventId?: string): Promise<void> {
    const position = positionOf(lastEventId);
    if (position) client.hold();
    let feed = this.feeds.get(client.company);
    if (!feed) this.feeds.set(client.company, (feed = { clients: new Set(), seen: new Map() }));
    feed.clients.add(client);
    client.onClose(() => this.unsubscribe(client));
    this.heartbeat ??= setInterval(() => void this.beat(), HEARTBEAT_MS);
    if (!position) return;
    let rows: StreamRow[] = [];
    try {
      rows = await this.logs.rowsAfter(client.company, position, PAGE);
    } finally {
      client.replay(rows.map((row) => ({ chunk: rowEvent(row), uuid: row.uuid, event: String(row.event) })));
    }
  }

  private unsubscribe(client: StreamClient): void {
    const feed = this.feeds.get(client.company);
    if (!feed) return;
    feed.clients.delete(client);
    if (!feed.clients.size && !feed.reading) this.feeds.delete(client.company);
  }

  private async listen(): Promise<Client> {
    const client = await listenOn(this.config.databaseUrl, ACTIVITY_CHANNEL, {
      onNotify: (payload) => this.notified(payload),
      onLost: (error) => {
        if (this.listener === client) this.listener = undefined;
        if (error && !this.outages.report(error))
          this.logger.warn(`LISTEN connection lost (${error.message})`);
      },
    });
    this.listener = client;
    return client;
  }

  private notified(payload: string): void {
    const notice = parseNotice(payload);
    if (notice?.kind === 'endpoint') {
      const feed = this.feeds.get(notice.company);
      if (feed) for (const client of feed.clients) client.write(`event: endpoint\ndata: ${notice.json}\n\n`);
    } else if (notice) {
      for (const company of notice.companies === '*' ? [...this.feeds.keys()] : notice.companies) {
        const feed = this.feeds.get(company);
        if (!feed) continue;
        feed.since = Math.min(feed.since ?? notice.since, notice.since);
        this.read(company, feed);
      }
    }
  }

  /** Reads the feed's notified rows now, or once more right after the read in progress. */
  private read(company: string, feed: Feed): void {
    if (feed.reading) return;
    feed.reading = this.readRows(company, feed)
      .catch((error: Error) => {
        if (!this.outages.report(error)) this.logger.warn(`reading activity failed: ${error.message}`);
      })
      .finally(() => {
        feed.reading = undefined;
        if (feed.since !== undefined && feed.clients.size) this.read(company, feed);
        else if (!feed.clients.size) this.feeds.delete(company);
      });
  }

  private async readRows(company: string, feed: Feed): Promise<void> {
    const since = feed.since;
    if (since === undefined) return;
    feed.since = undefined;
    let after: StreamPosition | undefined;
    for (;;) {
      const rows = await this.logs.rowsSince(company, since, after, PAGE);
      for (const row of rows) {
        if (feed.seen.has(row.uuid)) continue;
        const sent = new Date(row.sent_at).getTime();
        feed.seen.set(row.uuid, sent);
        feed.newest = Math.max(feed.newest ?? sent, sent);
        const event = rowEvent(row);
        for (const client of feed.clients) client.write(event, row.uuid, String(row.event));
      }
      if (rows.length < PAGE) break;
      const last = rows[rows.length - 1];
      after = { us: last.at_us, id: last.id };
    }
    forgetOld(feed.seen, Date.now() - SEEN_MS);
  }

  /** Heartbeat: a comment to every client; streams of revoked keys and ended sessions close; LISTEN comes back. */
  private async beat(): Promise<void> {
    if (!this.listener && !this.stopped && this.feeds.size) {
      try {
        await this.ready();
        // Notifications were missed meanwhile: read each feed from its newest row sent.
        for (const [company, feed] of this.feeds) {
          feed.since = Math.min(feed.since ?? Infinity, feed.newest ?? Date.now() - 60_000);
          this.read(company, feed);
        }
      } catch {
        // Still down: the outage monitor has it; try again at the next beat.
      }
    }
    const checked = new Map<string, Promise<boolean>>();
    for (const feed of this.feeds.values())
      for (const client of feed.clients) {
        const key = client.principal.key;
        let active = checked.get(key);
        if (!active) checked.set(key, (active = client.principal.active().catch(() => true)));
        void active.then((yes) => (yes ? client.ping() : client.end()));
      }
  }

  /** Before the HTTP server closes, which waits for open responses: the streams end (clients reconnect). */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const feed of this.feeds.values()) for (const client of feed.clients) client.end();
    this.feeds.clear();
  }

  onApplicationShutdown(): void {
    void this.listener?.end().catch(() => undefined);
    this.listener = undefined;
  }
}
