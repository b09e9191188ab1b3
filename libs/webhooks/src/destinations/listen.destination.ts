import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig, describeFailure } from '@wharf/core';
import { MAX_LOGGED_BODY } from '../tuning';
import { Attempt, DestinationEndpoint, Message } from '../transport/destination';
import { signedHeaders } from '../transport/signature';
import { ListenChannel } from './listen-channel';

/**
 * Sends to a `wharf listen` session: the signed message goes down the session's stream (ListenChannel) and
 * the CLI's answer from the local URL it forwards to comes back as the attempt's response. No answer within
 * WEBHOOKS_TIMEOUT_MS is a timeout, as for HTTP; a forward the CLI could not make is a failed attempt with
 * its error. The worker never dials the local URL: the developer's machine does.
 */
@Injectable()
export class ListenDestination {
  constructor(
    private readonly channel: ListenChannel,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(endpoint: DestinationEndpoint, { event, eventId, body }: Message): Promise<Attempt> {
    const sentAt = new Date();
    const started = performance.now();
    const base = { url: endpoint.url, request_body: body, sent_at: sentAt, permanent: false };
    const unanswered = (error: string, headers: Record<string, string> = {}): Attempt => ({
      ...base,
      request_headers: headers,
      response_status: null,
      response_headers: null,
      response_body: null,
      duration_ms: Math.round(performance.now() - started),
      error,
      status: 'failed',
    });
    if (endpoint.unreadableSecret) return unanswered(`secret: ${endpoint.unreadableSecret}`);
    const { headers, logged } = signedHeaders(endpoint.secrets, { id: eventId, body, at: sentAt });
    let answer;
    try {
      answer = await this.channel.send(endpoint.uuid, {
        event,
        event_id: eventId,
        headers,
        body,
        deadline: Date.now() + this.config.webhooks.timeoutMs,
      });
    } catch (error) {
      return unanswered(`redis: ${describeFailure(error)}`, logged);
    }
    if (!answer) return unanswered('timeout', logged);
    const ok = answer.error === null && answer.status !== null && answer.status >= 200 && answer.status < 300;
    return {
      ...base,
      request_headers: logged,
      response_status: answer.status,
      response_headers: answer.headers,
      response_body: answer.body === null ? null : answer.body.slice(0, MAX_LOGGED_BODY),
      // The receiver's time, as the CLI measured its forward (and printed it), not the way there and back.
      duration_ms: answer.duration_ms,
      error: answer.error === null ? null : `forward: ${answer.error}`,
      status: ok ? 'successful' : 'failed',
    };
  }
}
