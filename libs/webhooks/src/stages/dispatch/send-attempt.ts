import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { Job } from 'bullmq';
import { DeliveryJobData } from '../../jobs/delivery-job';
import { DeliveryMetrics } from '../../metrics/delivery-metrics';
import { Attempt, DESTINATION, Destination } from '../../transport/destination';
import { decideOutcome } from '../record/attempt-outcome';
import { AnswerGroup, AttemptWriter } from '../record/attempt-writer';
import { AttemptSpan } from './attempt-span';
import { CachedEndpoint, EndpointCache } from './endpoint-cache';
import { EndpointSendLeases } from './endpoint-send-leases';
import { ThinEnvelopes } from './thin-envelope';

/**
 * The send step of dispatch, for one delivery: sends it through the Destination under a send lease the
 * caller took, gives the lease back however the send ends, decides the outcome and hands the attempt to the
 * record stage. Resolves once its record is durable.
 */
@Injectable()
export class SendAttempt {
  private readonly logger = new Logger('delivery');

  constructor(
    @Inject(DESTINATION) private readonly destination: Destination,
    private readonly endpoints: EndpointCache,
    private readonly leases: EndpointSendLeases,
    private readonly records: AttemptWriter,
    private readonly metrics: DeliveryMetrics,
    private readonly thin: ThinEnvelopes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `released(job)`: the job was handed back to the queue by a shutdown timeout, so the worker that takes
   * it over records its attempt. `answers`: the batch job's outstanding answers, which its records wait for.
   */
  async send(
    job: Job,
    endpoint: CachedEndpoint,
    data: DeliveryJobData,
    released: (job: Job) => boolean,
    answers?: AnswerGroup,
  ): Promise<void> {
    const attempt = data.attempts + job.attemptsMade + 1;
    let result: Attempt;
    const body = endpoint.payload === 'thin' ? this.thin.thin(data.body) : data.body;
    const span = AttemptSpan.start(endpoint, data, attempt);
    const traceparent = span?.traceparent;
    // A lease lost here would be renewed for as long as this worker lives: one send fewer for its endpoint.
    try {
      this.metrics.started(data.endpoint);
      result = await this.destination.send(
        { ...endpoint, secrets: this.endpoints.secrets(endpoint) },
        { eventId: data.eventId, event: data.event, body, ...(traceparent && { traceparent }) },
      );
    } catch (error) {
      this.metrics.finished(data.endpoint);
      span?.threw(error);
      throw error;
    } finally {
      this.leases.release(endpoint.uuid);
      if (answers) this.records.answered(answers);
    }
    const { outcome, nextAttemptInMs } = decideOutcome(result, attempt, this.config.webhooks.retrySchedule);
    this.metrics.finished(data.endpoint, outcome, result.duration_ms / 1000);
    span?.answered(result, outcome);
    if (released(job)) throw new Error('released to the queue on shutdown');
    const recording = span?.recording();
    try {
      await this.records.record(
        {
          delivery: {
            uuid: data.delivery,
            company_uuid: data.company,
            endpoint_uuid: data.endpoint,
            event_id: data.eventId,
            event: data.event,
          },
          attempt,
          result,
          outcome,
          nextAttemptInMs,
          ...(body === data.body ? {} : { sentBody: body }),
        },
        answers,
      );
    } finally {
      recording?.end();
    }
    if (outcome !== 'successful') this.logFailure(data.delivery, attempt, result, outcome === 'failed');
  }

  /**
   * One line per failed attempt, naming what it got (a status or an error). A retry is expected: in
   * development it is at debug, so what `npm start` printed (the demo key) stays on screen while an endpoint
   * fails; the request log has every attempt. A delivery that has no attempt left is a warning.
   */
  private logFailure(delivery: string, attempt: number, result: Attempt, final: boolean): void {
    const line = {
      msg: 'delivery attempt failed',
      delivery,
      attempt,
      ...(result.response_status === null ? {} : { status: result.response_status }),
      ...(result.error === null ? {} : { error: result.error }),
      final,
    };
    if (final) this.logger.warn(line);
    else if (this.config.nodeEnv === 'development') this.logger.debug(line);
    else this.logger.log(line);
  }
}
