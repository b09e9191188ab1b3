import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { WebhookEvent, WebhookVerificationError, verifyWebhook } from '@wharf/client';
import { DriverLocations } from './driver-locations';

export { DriverLocations } from './driver-locations';
export type { DriverLocation } from './driver-locations';

/** Every event Wharf delivers, typed per event name (`event.event` narrows `event.data`). */
export type { WebhookEvent } from '@wharf/client';

export interface Logger {
  info(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

export interface ReceiverOptions {
  /** The endpoint's signing secret (`whsec_…`), shown when the endpoint was created. */
  secret: string;
  /** The URL path the endpoint was registered with. Default `/webhooks`. */
  path?: string;
  /** Your processing of every other event; runs after the delivery was acknowledged. */
  onEvent?: (event: WebhookEvent) => Promise<void> | void;
  /** Last known driver locations, updated from `driver.location_changed`. */
  locations?: DriverLocations;
  /** How long a `webhook-id` is remembered to drop redeliveries; Wharf retries for about 28 h. Default 48 h. */
  dedupeTtlMs?: number;
  /** Largest body accepted. Default 1 MiB. */
  maxBodyBytes?: number;
  logger?: Logger;
}

export interface Receiver {
  server: Server;
  locations: DriverLocations;
  /** Resolves once every event acknowledged so far has been processed (for tests and graceful shutdown). */
  idle(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Ids of deliveries already accepted. In-memory here; use a shared store (Redis SET NX EX) with several instances. */
class SeenIds {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly ttlMs: number) {}

  /** True the first time an id is claimed (until released or expired). */
  claim(id: string): boolean {
    const now = Date.now();
    for (const [seen, expiry] of this.expiries) {
      if (expiry > now) break; // insertion order = expiry order
      this.expiries.delete(seen);
    }
    if (this.expiries.has(id)) return false;
    this.expiries.set(id, now + this.ttlMs);
    return true;
  }

  release(id: string): void {
    this.expiries.delete(id);
  }
}

const consoleLogger: Logger = {
  info: (message, details) => console.log(JSON.stringify({ level: 'info', message, ...details })),
  error: (message, details) => console.error(JSON.stringify({ level: 'error', message, ...details })),
};

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () =>
      size > limit
        ? reject(new HttpError(413, `body larger than ${limit} bytes`))
        : resolve(Buffer.concat(chunks)),
    );
    req.on('error', reject);
  });
}

function headerValues(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A Wharf webhook receiver: verifies the Standard Webhooks signature and timestamp (±5 min) of every
 * request, answers the ownership challenge, drops redeliveries by `webhook-id`, applies driver locations
 * at once (400 `{"error"}` when one cannot be applied) and acknowledges every other event before
 * processing it in the background.
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  const path = options.path ?? '/webhooks';
  const seen = new SeenIds(options.dedupeTtlMs ?? 48 * 3600_000);
  const locations = options.locations ?? new DriverLocations();
  const logger = options.logger ?? consoleLogger;
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  let pending = Promise.resolve();

  /** In-process background work, in order. Use a durable queue (BullMQ, SQS…) when losing work on a crash matters. */
  function processLater(event: WebhookEvent): void {
    pending = pending.then(async () => {
      try {
        await options.onEvent?.(event);
        logger.info('processed', { id: event.id, event: event.event });
      } catch (error) {
        logger.error('processing failed', { id: event.id, event: event.event, error: String(error) });
      }
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://receiver').pathname !== path) throw new HttpError(404, 'not found');
    if (req.method !== 'POST') throw new HttpError(405, 'use POST');
    const body = await readBody(req, limit);

    let payload: unknown;
    try {
      payload = verifyWebhook(options.secret, headerValues(req.headers), body);
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw new HttpError(401, error.message);
      throw new HttpError(400, 'the body is not JSON');
    }

    if (typeof payload !== 'object' || payload === null)
      throw new HttpError(400, 'not a Wharf event envelope');
    const message = payload as Partial<WebhookEvent> & { type?: string; challenge?: unknown };
    if (message.type === 'webhook.verification') {
      send(res, 200, { challenge: message.challenge });
      return;
    }
    if (typeof message.event !== 'string' || typeof message.data !== 'object' || message.data === null)
      throw new HttpError(400, 'not a Wharf event envelope');
    const event = message as WebhookEvent;
    const id = req.headers['webhook-id'] as string;
    if (!seen.claim(id)) {
      send(res, 200, { status: 'duplicate' });
      return;
    }

    if (event.event === 'driver.location_changed') {
      // Cheap enough to apply before answering, so a location that cannot be applied is reported (400).
      try {
        const stored = locations.apply(event.data.id, event.data.location);
        send(res, 200, { status: stored ? 'applied' : 'ignored: older than the stored location' });
      } catch (error) {
        seen.release(id); // a redelivery may succeed later (e.g. once the driver is known)
        throw new HttpError(400, (error as Error).message);
      }
      return;
    }
    send(res, 202, { status: 'accepted' });
    processLater(event);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof HttpError ? error.message : 'internal error';
      logger.error('refused', { status, error: String(error), webhook_id: req.headers['webhook-id'] });
      if (!res.headersSent) send(res, status, { error: message });
    });
  });
  return { server, locations, idle: () => pending };
}
