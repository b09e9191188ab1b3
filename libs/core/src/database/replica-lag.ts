/**
 * The primary's WAL write position at each sample, for the time behind it a replica is: a replica that has
 * replayed the position of the sample taken at `at` holds everything committed by then. Measured this way,
 * an idle primary leaves its replicas 0 behind (pg_last_xact_replay_timestamp would grow), and a replica
 * whose replay is paused falls behind as soon as the primary writes.
 */
export class PrimaryPositions {
  private readonly samples: { at: number; lsn: bigint }[] = [];

  /** `keepMs`: how far back lags are told apart; a replica further behind is `keepMs` or more behind. */
  constructor(private readonly keepMs: number) {}

  add(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    let old = 0;
    while (old < this.samples.length - 1 && this.samples[old + 1].at <= at - this.keepMs) old++;
    if (old) this.samples.splice(0, old);
  }

  /** How long, as of `now`, a replica that has replayed `replayed` is behind; Infinity before any sample. */
  lagMs(replayed: bigint, now: number): number {
    for (let i = this.samples.length - 1; i >= 0; i--)
      if (this.samples[i].lsn <= replayed)
        return i === this.samples.length - 1 ? 0 : now - this.samples[i].at;
    return this.samples.length ? Math.max(this.keepMs, now - this.samples[0].at) : Infinity;
  }
}
