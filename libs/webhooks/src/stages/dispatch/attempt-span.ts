import { TraceSpan, Tracing, tracing } from '@wharf/core';
import { DeliveryJobData } from '../../jobs/delivery-job';
import { Attempt } from '../../transport/destination';
import { AttemptOutcome } from '../../store/delivery-state';
import { CachedEndpoint } from './endpoint-cache';

/** The URL as a span shows it: no credentials, no query (either may hold a secret). */
function shownUrl(url: string): { 'url.full'?: string; 'server.address'?: string } {
  try {
    const parsed = new URL(url);
    return {
      'url.full': `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
      'server.address': parsed.hostname,
    };
  } catch {
    return {};
  }
}

/**
 * The traces of one delivery attempt: a client span, child of the span of the write that made the event
 * (its trace context travels in the job, so a retry an hour later in another worker joins the same trace),
 * and the span of its record, child of the attempt's.
 */
export class AttemptSpan {
  private constructor(
    private readonly traces: Tracing,
    private readonly span: TraceSpan,
    private readonly propagate: boolean,
  ) {}

  /** The attempt's span, or undefined when tracing is off. */
  static start(endpoint: CachedEndpoint, data: DeliveryJobData, attempt: number): AttemptSpan | undefined {
    const traces = tracing();
    if (!traces) return undefined;
    const span = traces.start('webhook attempt', {
      parent: data.trace ?? null,
      kind: 'client',
      attributes: {
        'wharf.endpoint.uuid': endpoint.uuid,
        'wharf.endpoint.type': endpoint.type,
        ...shownUrl(endpoint.url),
        'wharf.delivery.uuid': data.delivery,
        'wharf.delivery.attempt': attempt,
        'wharf.event.id': data.eventId,
        'wharf.event.name': data.event,
      },
    });
    return new AttemptSpan(traces, span, endpoint.propagateTrace);
  }

  /** The `traceparent` to send with the attempt: only to an endpoint that opted in (`propagate_trace`). */
  get traceparent(): string | undefined {
    return this.propagate ? this.span.traceparent : undefined;
  }

  /** The send threw (a bug or a shutdown cutting it): the attempt is not recorded. */
  threw(error: unknown): void {
    this.span.failed((error as Error)?.message ?? String(error));
    this.span.end();
  }

  answered(result: Attempt, outcome: AttemptOutcome): void {
    this.span.set({
      'wharf.delivery.outcome': outcome,
      'http.response.status_code': result.response_status ?? undefined,
      'error.type': result.error ?? undefined,
    });
    if (outcome !== 'successful')
      this.span.failed(result.error ?? `answered ${result.response_status ?? 'nothing'}`);
    this.span.end();
  }

  /** The span of the attempt's record, from now until `end` is called (its statement committed). */
  recording(): TraceSpan {
    return this.traces.start('webhook attempt record', { parent: this.span.context });
  }
}
