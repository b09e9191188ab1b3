import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { OutageMonitor } from '@wharf/core';
import { DataSource } from 'typeorm';
import { LISTEN_TYPE } from '../../destinations/destination-types';
import { ListenChannel } from '../../destinations/listen-channel';
import { LISTEN_REAP_EVERY_MS, LISTEN_SESSION_GRACE_MS } from '../../tuning';
import { PeriodicTask } from '../recovery/periodic-task';

/**
 * Deletes the endpoint of each listen session, opened more than the grace period ago, whose stream has
 * been gone for the grace period (the CLI was killed, the laptop closed): its deliveries stop and nothing
 * of it is left. A session the CLI ended itself is gone already.
 */
@Injectable()
export class ListenSessionReaper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('listen');
  private readonly periodic: PeriodicTask;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly channel: ListenChannel,
    outages: OutageMonitor,
  ) {
    this.periodic = new PeriodicTask(this.logger, () => this.reap(), outages);
  }

  onApplicationBootstrap(): void {
    this.periodic.start(LISTEN_REAP_EVERY_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.periodic.stop();
  }

  /** Deletes the abandoned sessions' endpoints; returns how many. */
  async reap(): Promise<number> {
    // A session younger than the grace period may not be marked alive yet (its CLI is still connecting).
    const rows: { uuid: string }[] = await this.dataSource.query(
      `SELECT uuid FROM webhook_endpoints
       WHERE type = $1 AND created_at < now() - $2::int * interval '1 millisecond'`,
      [LISTEN_TYPE, LISTEN_SESSION_GRACE_MS],
    );
    if (!rows.length) return 0;
    const alive = await this.channel.alive(rows.map((row) => row.uuid));
    const gone = rows.map((row) => row.uuid).filter((uuid) => !alive.has(uuid));
    if (!gone.length) return 0;
    await this.dataSource.query('DELETE FROM webhook_endpoints WHERE uuid = ANY($1) AND type = $2', [
      gone,
      LISTEN_TYPE,
    ]);
    await Promise.all(gone.map((uuid) => this.channel.end(uuid)));
    this.logger.log({ msg: 'listen sessions ended: their streams were gone', sessions: gone.length });
    return gone.length;
  }
}
