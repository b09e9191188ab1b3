/** A WAL position (`16/B374D848`, as pg_lsn prints) as a number that compares as positions do. */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/');
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`);
}

/**
 * What a caller's reads need of a replica after its last write: the primary's WAL position read by a
 * sample started after the write committed (`afterSample`: the samples started by then), so at or past the
 * commit; `lsn` once that sample answered.
 */
interface Mark {
  afterSample: number;
  lsn?: bigint;
}

/**
 * The last write of each caller (API key or portal session) of this process, for read-your-writes across
 * replicas. Bounded: past `max` callers the oldest mark is dropped and its need raised into a floor every
 * caller's reads need, so dropping one never lets its caller read a replica behind its write.
 */
export class WriteMarks {
  /** In the order of each caller's last write, so the oldest (and the lowest positions) come first. */
  private readonly marks = new Map<string, Mark>();
  /** Marks waiting for a sample started after them, oldest first. */
  private pending: Mark[] = [];
  private floor: { lsn: bigint; afterSample?: number } = { lsn: 0n };

  constructor(private readonly max = 100_000) {}

  /** `caller`'s write has committed; `samplesStarted`: primary samples started so far. */
  wrote(caller: string, samplesStarted: number): void {
    const mark: Mark = { afterSample: samplesStarted };
    this.marks.delete(caller);
    this.marks.set(caller, mark);
    this.pending.push(mark);
    if (this.marks.size > this.max) this.dropOldest();
  }

  /**
   * The WAL position a replica must have replayed before `caller` reads from it; undefined while its last
   * write's position is not known yet (the caller then reads the primary).
   */
  needed(caller: string | undefined): bigint | undefined {
    if (this.floor.afterSample !== undefined) return undefined;
    const mark = caller === undefined ? undefined : this.marks.get(caller);
    if (!mark) return this.floor.lsn;
    if (mark.lsn === undefined) return undefined;
    return mark.lsn > this.floor.lsn ? mark.lsn : this.floor.lsn;
  }

  /** The primary's sample number `sample` answered with `lsn`: it settles every mark made before it started. */
  settle(sample: number, lsn: bigint): void {
    let settled = 0;
    while (settled < this.pending.length && this.pending[settled].afterSample < sample)
      this.pending[settled++].lsn = lsn;
    if (settled) this.pending = this.pending.slice(settled);
    if (this.floor.afterSample !== undefined && this.floor.afterSample < sample)
      this.floor = { lsn: lsn > this.floor.lsn ? lsn : this.floor.lsn };
  }

  /** Forgets the marks every replica has replayed (`replayed`: the least replay position among them). */
  forgetReplayed(replayed: bigint): void {
    for (const [caller, mark] of this.marks) {
      if (mark.lsn === undefined || mark.lsn > replayed) return;
      this.marks.delete(caller);
    }
  }

  get size(): number {
    return this.marks.size;
  }

  private dropOldest(): void {
    const [caller, mark] = this.marks.entries().next().value as [string, Mark];
    this.marks.delete(caller);
    if (mark.lsn === undefined)
      this.floor.afterSample = Math.max(this.floor.afterSample ?? mark.afterSample, mark.afterSample);
    else if (mark.lsn > this.floor.lsn) this.floor.lsn = mark.lsn;
  }
}
