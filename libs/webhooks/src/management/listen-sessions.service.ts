import type { ServerResponse } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { ApiError, ResourceServices } from '@wharf/core';
import { StreamPrincipal } from '../activity/stream-client';
import { LISTEN_TYPE } from '../destinations/destination-types';
import { ListenChannel } from '../destinations/listen-channel';
import { ENTRY_ID } from '../destinations/listen-entry';
import { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { LISTEN_HEARTBEAT_MS } from '../tuning';
import { readActionBody } from './action-body';
import { ListenAnswerDto, ListenSessionDto } from './listen-session.dto';

/** A client's buffered bytes past which it is too slow to follow: its stream ends (it resumes from its last id). */
const MAX_BUFFERED = 1024 * 1024;

/** The body's fields, flat or under `listen_session`. */
function unwrap(body: unknown): unknown {
  const wrapped = body as { listen_session?: unknown } | null;
  return wrapped && typeof wrapped === 'object' && Object.keys(wrapped).length === 1 && wrapped.listen_session
    ? wrapped.listen_session
    : body;
}

/**
 * `wharf listen` sessions. A session is a webhook endpoint of type `listen` of the caller's company: the
 * fan-out, filters, thin payloads, ordering, retries and the request log treat it as any endpoint, and its
 * deliveries go down the session's stream (ListenChannel) to the CLI, whose answers come back through here.
 * Ending the session deletes the endpoint; so does the worker once its stream has been gone for the grace
 * period (ListenSessionReaper).
 */
@Injectable()
export class ListenSessionsService {
  private readonly logger = new Logger('listen');

  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly channel: ListenChannel,
    private readonly services: ResourceServices,
  ) {}

  /** The caller's session `uuid`, or undefined (another company's, another type of endpoint, none). */
  private async find(uuid: string): Promise<{ type: string } | undefined> {
    try {
      const found = (await this.services.for(WebhookEndpoint).find(uuid)) as {
        webhook_endpoint: { type: string };
      };
      return found.webhook_endpoint.type === LISTEN_TYPE ? found.webhook_endpoint : undefined;
    } catch (error) {
      if (error instanceof ApiError && error.getStatus() === 404) return undefined;
      throw error;
    }
  }

  private async exists(uuid: string): Promise<boolean> {
    return (await this.find(uuid)) !== undefined;
  }

  /** The caller's session `uuid`; 404 for any other endpoint. */
  private async session(uuid: string): Promise<void> {
    if (!(await this.find(uuid))) throw ApiError.notFound(`No listen session with uuid "${uuid}".`);
  }

  /** Opens a session: its endpoint, and its secret (this once). */
  async open(body: unknown) {
    const { forward_to: forwardTo, ...subscription } = readActionBody(
      ListenSessionDto,
      unwrap(body),
      'a listen session',
    );
    const { webhook_endpoint: created } = await this.endpoints.createFromBody(
      { webhook_endpoint: { ...subscription, description: `wharf listen → ${forwardTo}` } },
      { type: LISTEN_TYPE, url: forwardTo },
    );
    const { secret, ...endpoint } = created;
    await this.channel.touch(endpoint.uuid as string);
    return {
      listen_session: { uuid: endpoint.uuid, forward_to: forwardTo, secret, webhook_endpoint: endpoint },
    };
  }

  /** Ends a session: its endpoint goes (with its deliveries and log), then its stream. */
  async end(uuid: string) {
    await this.session(uuid);
    await this.services.for(WebhookEndpoint).remove(uuid);
    await this.channel.end(uuid);
    return { listen_session: { uuid, status: 'ended' } };
  }

  /** Hands the CLI's answer to one delivery of the stream to the send waiting for it. */
  async answer(uuid: string, body: unknown) {
    const answer = readActionBody(ListenAnswerDto, body, 'an answer');
    await this.session(uuid);
    const headers = Object.fromEntries(
      Object.entries(answer.headers ?? {}).filter(([, value]) => typeof value === 'string'),
    );
    const received = await this.channel.answer(uuid, answer.id, {
      status: answer.status ?? null,
      headers: answer.status === undefined ? null : headers,
      body: answer.body ?? null,
      duration_ms: answer.duration_ms ?? 0,
      error: answer.error ?? (answer.status === undefined ? 'no answer' : null),
    });
    if (received === undefined)
      throw ApiError.notFound(`The session's stream has no event "${answer.id}" (it ended, or was trimmed).`);
    return { listen_answer: { id: answer.id, received } };
  }

  /** The session, checked to be the caller's, before its stream opens. */
  async check(uuid: string, lastEventId: unknown): Promise<string> {
    await this.session(uuid);
    if (lastEventId === undefined) return '0';
    if (typeof lastEventId !== 'string' || !ENTRY_ID.test(lastEventId))
      throw ApiError.of(400, 'Last-Event-ID must be the id of an event of this stream.', {
        source: { header: 'last-event-id' },
      });
    return lastEventId;
  }

  /**
   * Streams the session's deliveries after `after` as `delivery` events whose id is their stream entry's,
   * until the client goes or its key or portal session stops holding; marks the session alive meanwhile. A
   * delivery whose sender stopped waiting is skipped: its retry comes down the stream again.
   */
  async stream(uuid: string, after: string, response: ServerResponse, principal: StreamPrincipal) {
    const reader = this.channel.reader();
    let open = true;
    response.on('close', () => {
      open = false;
      this.channel.closeReader(reader);
    });
    let beat = 0;
    let position = after;
    try {
      while (open) {
        if (Date.now() >= beat) {
          // Its key revoked, or the session ended elsewhere (deleted from the console): the stream ends.
          if (!(await principal.active()) || !(await this.exists(uuid))) break;
          await this.channel.touch(uuid);
          response.write(':\n\n');
          beat = Date.now() + LISTEN_HEARTBEAT_MS;
        }
        const entries = await this.channel.read(reader, uuid, position, LISTEN_HEARTBEAT_MS);
        for (const { id, delivery } of entries) {
          // Too slow to follow: the stream ends here, and the client resumes after the last id it got.
          if (response.writableLength > MAX_BUFFERED) {
            open = false;
            break;
          }
          position = id;
          if (delivery.deadline > Date.now())
            response.write(`id: ${id}\nevent: delivery\ndata: ${JSON.stringify(delivery)}\n\n`);
        }
      }
    } catch (error) {
      if (open)
        this.logger.warn({ msg: 'listen stream ended', session: uuid, error: (error as Error).message });
    } finally {
      this.channel.closeReader(reader);
      response.end();
    }
  }
}
