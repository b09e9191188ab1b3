import { useEffect, useState } from 'preact/hooks';
import { Endpoint, EndpointQueue, api, unwrap, session } from '../api';
import { ErrorMessage, Panel, useAction } from '../ui';

const REFRESH_MS = 2000;

/**
 * An endpoint's delivery settings (max in flight, rate limit, ordering, payload form), editable, with what its deliveries
 * are doing right now: in flight, waiting, retrying, and whether it is throttled after timeouts.
 */
export function DeliverySettings({
  endpoint,
  onSaved,
}: {
  endpoint: Endpoint;
  onSaved: () => Promise<void>;
}) {
  const [queue, setQueue] = useState<EndpointQueue | null>(null);
  const [maxInFlight, setMaxInFlight] = useState(String(endpoint.max_in_flight));
  const [rate, setRate] = useState(endpoint.rate_limit_per_second?.toString() ?? '');
  const [ordering, setOrdering] = useState(endpoint.ordering);
  const [payload, setPayload] = useState(endpoint.payload);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let stopped = false;
    const refresh = async () => {
      const body = await api('GET', `/webhook-endpoints/${endpoint.uuid}/queue`).catch(() => null);
      if (!stopped && body) setQueue(unwrap<EndpointQueue>(body, 'webhook_endpoint_queue'));
    };
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [endpoint.uuid]);

  const save = useAction(async () => {
    setSaved(false);
    // Sent as typed: the API validates and answers with the field at fault.
    const number = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : text);
    await api('PUT', `/webhook-endpoints/${endpoint.uuid}`, {
      webhook_endpoint: {
        max_in_flight: number(maxInFlight),
        rate_limit_per_second: rate.trim() === '' ? null : number(rate),
        ordering,
        payload,
      },
    });
    await onSaved();
    setSaved(true);
  });

  const throttled = queue?.throttled ?? endpoint.throttled;
  const reason = queue?.throttled_reason ?? endpoint.throttled_reason;
  return (
    <Panel title="Delivery">
      <p data-testid="delivery-queue">
        {queue ? (
          <>
            <strong>{queue.in_flight}</strong> in flight (of {throttled ? 1 : queue.max_in_flight}) ·{' '}
            <strong>{queue.waiting}</strong> waiting · <strong>{queue.retrying}</strong> retrying
          </>
        ) : (
          'Loading…'
        )}
      </p>
      {throttled && (
        <p class="warning" data-testid="throttled">
          <span class="badge disabled">throttled</span> {reason}
        </p>
      )}
      {session.canWrite() ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void save.act();
          }}
        >
          <label for="max-in-flight">Max in flight (1–100)</label>
          <input
            id="max-in-flight"
            inputMode="numeric"
            value={maxInFlight}
            onInput={(e) => setMaxInFlight(e.currentTarget.value)}
          />
          <label for="rate-limit">Rate limit per second (empty = unlimited)</label>
          <input
            id="rate-limit"
            inputMode="numeric"
            value={rate}
            onInput={(e) => setRate(e.currentTarget.value)}
          />
          <label for="ordering">Ordering</label>
          <select
            id="ordering"
            value={ordering}
            onChange={(e) => setOrdering(e.currentTarget.value as Endpoint['ordering'])}
          >
            <option value="none">None: fastest</option>
            <option value="entity">Per record, in commit order</option>
          </select>
          <label for="payload">Payload form</label>
          <select
            id="payload"
            value={payload}
            onChange={(e) => setPayload(e.currentTarget.value as Endpoint['payload'])}
          >
            <option value="full">Full: the record</option>
            <option value="thin">Thin: a link to it</option>
          </select>
          <button type="submit" disabled={save.busy}>
            Save delivery settings
          </button>
        </form>
      ) : (
        <p class="muted">
          Max in flight {endpoint.max_in_flight} · rate limit{' '}
          {endpoint.rate_limit_per_second === null ? 'none' : `${endpoint.rate_limit_per_second}/s`} ·
          ordering {endpoint.ordering} · payload form {endpoint.payload}
        </p>
      )}
      {saved && <p role="status">Saved.</p>}
      <ErrorMessage error={save.error} />
    </Panel>
  );
}
