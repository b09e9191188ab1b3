import type { ServerResponse } from 'node:http';

/** Who a stream is for, and how to tell that its key or session still holds (asked at each heartbeat). */
export interface StreamPrincipal {
  /** One check per key or session however many streams it has open. */
  key: string;
  active(): Promise<boolean>;
}

/** A client's buffered bytes past which it is too slow to follow: its stream ends (it reconnects and replays). */
const MAX_BUFFERED = 1024 * 1024;

/** One Server-Sent Events response: writes events, heartbeat comments, and ends at the session's expiry. */
export class StreamClient {
  private closed = false;
  private held?: { chunk: string; uuid?: string }[];
  /** The log rows the replay sent (at most a page): never sent again live. */
  private replayed?: Set<string>;
  private readonly expiry?: NodeJS.Timeout;

  constructor(
    readonly company: string,
    readonly principal: StreamPrincipal,
    private readonly response: ServerResponse,
    expiresAt?: number,
    /** The events whose log rows it may read (its permissions); undefined: every one. */
    private readonly events?: ReadonlySet<string>,
  ) {
    if (expiresAt !== undefined)
      this.expiry = setTimeout(() => this.end(), Math.max(0, Math.min(expiresAt - Date.now(), 2 ** 31 - 1)));
    // Held from the start: a response that closes lets go of it, and a stream's socket is never reused.
    const socket = response.socket;
    response.on('close', () => {
      this.closed = true;
      if (this.expiry) clearTimeout(this.expiry);
      // Left open, it would hold the server's close (it has no request in flight, yet is not idle).
      socket?.destroy();
    });
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.response.on('close', listener);
  }

  /**
   * Sends an event, or keeps it while a replay runs (`uuid`: the log row it carries, if any, and `event`
   * the name of the event that row delivered: a row of an event it may not read is not sent).
   */
  write(chunk: string, uuid?: string, event?: string): void {
    if (event !== undefined && !this.mayRead(event)) return;
    // A row the replay read may reach the hub after the replay is sent: it was sent once already.
    if (uuid && this.replayed?.has(uuid)) return;
    if (this.held) this.held.push({ chunk, uuid });
    else this.send(chunk);
  }

  /** Keeps live events back until `replay`: a reconnecting client gets what it missed first, in order. */
  hold(): void {
    this.held ??= [];
  }

  /** Sends the missed rows, then the live events kept meanwhile that are not among them. */
  replay(rows: { chunk: string; uuid: string; event?: string }[]): void {
    const held = this.held ?? [];
    this.held = undefined;
    const replayed = (this.replayed = new Set(rows.map((row) => row.uuid)));
    for (const row of rows) if (row.event === undefined || this.mayRead(row.event)) this.send(row.chunk);
    for (const event of held) if (!event.uuid || !replayed.has(event.uuid)) this.send(event.chunk);
  }

  private mayRead(event: string): boolean {
    return this.events?.has(event) ?? true;
  }

  private send(chunk: string): void {
    if (this.closed) return;
    if (this.response.writableLength > MAX_BUFFERED) this.end();
    else this.response.write(chunk);
  }

  ping(): void {
    this.send(':\n\n');
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.expiry) clearTimeout(this.expiry);
    this.response.end();
  }
}
