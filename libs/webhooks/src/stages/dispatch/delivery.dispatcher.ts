import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '@wharf/core';
import { Job } from 'bullmq';
import { BatchedDelivery, DeliveryBatchJobData, DeliveryJobData, unbatched } from '../../jobs/delivery-job';
import { DeliveryStore } from '../../store/delivery.store';
import { DeliveryAdmitter } from '../admission/delivery.admitter';
import { AnswerGroup } from '../record/attempt-writer';
import { CachedEndpoint, EndpointCache } from './endpoint-cache';
import { EndpointSendLeases } from './endpoint-send-leases';
import { RateGate } from './rate-gate';
import { SendAttempt } from './send-attempt';

/** What loading a job found. */
type Loaded =
  | { kind: 'send'; endpoint: CachedEndpoint; deliveries: BatchedDelivery[] }
  /** Every delivery of the job was recorded by an earlier run. */
  | { kind: 'done' }
  /** The endpoint is gone or no longer enabled: its deliveries failed, as their attempts would. */
  | { kind: 'undeliverable' };

/**
 * Stage 3, dispatch, for one job: load (the endpoint, and which deliveries are still to send) → gate (the
 * endpoint's rate limit, then a send lease each) → send (SendAttempt, which hands each attempt to the
 * record stage). `released(job)` says a shutdown handed the job back to the queue.
 */
@Injectable()
export class DeliveryDispatcher {
  constructor(
    private readonly store: DeliveryStore,
    private readonly endpoints: EndpointCache,
    private readonly admitter: DeliveryAdmitter,
    private readonly rateGate: RateGate,
    private readonly leases: EndpointSendLeases,
    private readonly attempt: SendAttempt,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A job of one delivery: a retry, or a send under a rate limit (which waits for its slot). A run after
   * the first sends only if PostgreSQL still has the delivery admitted with the attempts the job carries
   * (a worker killed after its record committed leaves the job to run again).
   */
  async deliver(job: Job<DeliveryJobData>, released: (job: Job) => boolean, token?: string): Promise<void> {
    const data = job.data;
    const loaded = await this.load(data, job.attemptsStarted > 1 ? await this.stillAdmitted([data]) : [data]);
    if (loaded.kind !== 'send') return;
    await this.leases.take(loaded.endpoint.uuid, this.capOf(data), 1);
    try {
      await this.rateGate.pass(job, loaded.endpoint.rateLimitPerSecond, token);
    } catch (error) {
      this.leases.release(loaded.endpoint.uuid);
      throw error;
    }
    await this.attempt.send(job, loaded.endpoint, data, released);
  }

  /**
   * First attempts at one endpoint, admitted together: each sent as soon as it has a lease and recorded as
   * soon as it is answered, the job done when all are recorded. A run after the first (a crash left the job
   * stalled, a record failed, a shutdown handed it back) sends only those PostgreSQL still has admitted.
   */
  async deliverBatch(job: Job<DeliveryBatchJobData>, released: (job: Job) => boolean): Promise<void> {
    const data = job.data;
    const loaded = await this.load(
      data,
      job.attemptsStarted > 1 ? await this.stillAdmitted(data.deliveries) : data.deliveries,
    );
    if (loaded.kind !== 'send') return;
    const { endpoint, deliveries } = loaded;
    // A rate limit set since the admission: each send needs its own slot, so each delivery its own job.
    if (endpoint.rateLimitPerSecond !== null)
      return this.admitter.enqueueEach(deliveries.map((d) => unbatched(data, d)));
    const answers = new AnswerGroup(deliveries.length);
    const sends: Promise<void>[] = [];
    let taking: Error | undefined;
    try {
      // The leases of the endpoint's previous job come free one by one as its answers arrive.
      for (let next = 0; next < deliveries.length;) {
        const granted = await this.leases.take(endpoint.uuid, this.capOf(data), deliveries.length - next);
        for (const d of deliveries.slice(next, (next += granted)))
          sends.push(this.attempt.send(job, endpoint, unbatched(data, d), released, answers));
      }
    } catch (error) {
      taking = error as Error;
    }
    const failed = (await Promise.allSettled(sends)).find(
      (r): r is PromiseRejectedResult => r.status === 'rejected',
    );
    if (failed) throw failed.reason;
    if (taking) throw taking;
  }

  private async load(
    job: { endpoint: string; endpointVersion: number },
    deliveries: BatchedDelivery[],
  ): Promise<Loaded> {
    if (!deliveries.length) return { kind: 'done' };
    const endpoint = await this.endpoints.get(job.endpoint, job.endpointVersion);
    if (endpoint?.status === 'enabled') return { kind: 'send', endpoint, deliveries };
    await this.store.failUndeliverable(deliveries.map((d) => d.delivery));
    this.admitter.admit([job.endpoint]);
    return { kind: 'undeliverable' };
  }

  /** Those of `deliveries` still admitted with no attempt recorded since the job was made. */
  private async stillAdmitted<D extends BatchedDelivery>(deliveries: D[]): Promise<D[]> {
    const admitted = await this.store.stillAdmitted(deliveries.map((d) => d.delivery));
    return deliveries.filter((d) => admitted.get(d.delivery) === d.attempts);
  }

  /** The endpoint's sends at once, as admitted (a job queued by an earlier version carries none). */
  private capOf(data: { cap?: number }): number {
    return data.cap ?? this.config.webhooks.endpointConcurrency;
  }
}
