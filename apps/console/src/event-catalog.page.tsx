import { useEffect, useState } from 'preact/hooks';
import { CatalogEvent, Endpoint, RequestLog, api, session, unwrap } from './api';
import { ErrorMessage, Panel, useAction } from './ui';

function SendTest({ event, endpoints }: { event: string; endpoints: Endpoint[] }) {
  const [chosen, setChosen] = useState('');
  // The endpoints may arrive after this mounts: until one is picked, the first of the list is the target.
  const target = endpoints.some((e) => e.uuid === chosen) ? chosen : (endpoints[0]?.uuid ?? '');
  const [result, setResult] = useState<RequestLog | null>(null);
  const send = useAction(async () => {
    setResult(null);
    const body = await api('POST', `/webhook-endpoints/${target}/test`, { event });
    setResult(unwrap<RequestLog>(body, 'webhook_request_log'));
  });
  if (!endpoints.length) return <p class="muted">Add an endpoint to send this event as a test.</p>;
  const id = `send-${event.replace(/\W/g, '-')}`;
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void send.act();
      }}
    >
      <label for={id}>Send as a test to</label>
      <select id={id} value={target} onChange={(e) => setChosen(e.currentTarget.value)}>
        {endpoints.map((endpoint) => (
          <option key={endpoint.uuid} value={endpoint.uuid}>
            {endpoint.url}
          </option>
        ))}
      </select>
      <button type="submit" disabled={send.busy || !target}>
        Send this as a test
      </button>
      <ErrorMessage error={send.error} />
      {result && (
        <p role="status" data-testid="catalog-test-result">
          <span class={`badge ${result.status}`}>{result.response_status ?? result.error}</span> in{' '}
          {result.duration_ms} ms
        </p>
      )}
    </form>
  );
}

/** Every event the platform emits, with its JSON Schema and an example envelope, and "send this as a test". */
export function EventCatalogPage() {
  const [events, setEvents] = useState<CatalogEvent[] | null>(null);
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api('GET', '/webhook-events')
      .then((body) => setEvents(body.webhook_events ?? []))
      .catch(setError);
    api('GET', '/webhook-endpoints?limit=100&sort=-created_at')
      .then((body) => setEndpoints(body.webhook_endpoints ?? []))
      .catch(setError);
  }, []);
  return (
    <>
      <h1>Event catalog</h1>
      <ErrorMessage error={error} />
      {events === null ? (
        <p>Loading…</p>
      ) : (
        events.map((event) => (
          <Panel key={event.name} title={event.name}>
            <p>{event.description}</p>
            <details>
              <summary>Example</summary>
              <pre data-testid={`example-${event.name}`}>{JSON.stringify(event.example, null, 2)}</pre>
            </details>
            <details>
              <summary>JSON Schema</summary>
              <pre>{JSON.stringify(event.schema, null, 2)}</pre>
            </details>
            {session.canWrite() && <SendTest event={event.name} endpoints={endpoints} />}
          </Panel>
        ))
      )}
    </>
  );
}
