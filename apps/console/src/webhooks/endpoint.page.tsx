import { useEffect, useState } from 'preact/hooks';
import { ActivityChart } from '../activity-chart';
import { CatalogEvent, Endpoint, RequestLog, api, session, unwrap } from '../api';
import { useLive } from '../live';
import { ConfirmButton, ErrorMessage, Panel, SecretValue, StatusBadge, useAction } from '../ui';
import { DeliveryLog } from './delivery-log';
import { DeliverySettings } from './delivery-settings';
import { DestinationSummary, typeLabel } from './destination-fields';
import { EndpointBanner } from './endpoint-banner';
import { FilterEditor } from './filter-editor';
import { HeadersAuth } from './headers-auth';

function secretOf(body: any): string {
  return body?.secret ?? body?.webhook_endpoint?.secret ?? body?.webhook_endpoint_secret?.secret ?? '';
}

export function EndpointPage({ uuid }: { uuid: string }) {
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [catalog, setCatalog] = useState<CatalogEvent[]>([]);
  const [testEvent, setTestEvent] = useState('order.updated');
  const [testResult, setTestResult] = useState<RequestLog | null>(null);
  const [verifyMessage, setVerifyMessage] = useState<string | null>(null);
  const [since, setSince] = useState(() => new Date(Date.now() - 3600 * 1000).toISOString().slice(0, 16));
  const [recovered, setRecovered] = useState<string | null>(null);

  const load = async () => {
    try {
      setEndpoint(unwrap<Endpoint>(await api('GET', `/webhook-endpoints/${uuid}`), 'webhook_endpoint'));
    } catch (caught) {
      setLoadError(caught);
    }
  };
  useLive(
    (event) => {
      if (event.type === 'endpoint' && event.endpoint.uuid === uuid)
        setEndpoint((current) => current && { ...current, ...event.endpoint });
    },
    [uuid],
  );
  useEffect(() => {
    void load();
    void api('GET', '/webhook-events').then((body) => setCatalog(body.webhook_events ?? body.events ?? []));
  }, [uuid]);

  const post = (path: string, body?: unknown) => api('POST', `/webhook-endpoints/${uuid}/${path}`, body);
  const reveal = useAction(async () =>
    setSecret(secretOf(await api('GET', `/webhook-endpoints/${uuid}/secret`))),
  );
  const rotate = useAction(async () => {
    setSecret(secretOf(await post('rotate-secret')));
    await load();
  });
  const toggle = useAction(async () => {
    await post(endpoint?.status === 'enabled' ? 'disable' : 'enable');
    await load();
  });
  const remove = useAction(async () => {
    await api('DELETE', `/webhook-endpoints/${uuid}`);
    location.hash = '#/webhooks';
  });
  const verify = useAction(async () => {
    setVerifyMessage(null);
    await post('verify');
    await load();
    setVerifyMessage('Ownership verified.');
  });
  const test = useAction(async () => {
    setTestResult(null);
    setTestResult(unwrap<RequestLog>(await post('test', { event: testEvent }), 'webhook_request_log'));
  });
  const recover = useAction(async () => {
    const body = await post('recover', { since: new Date(since).toISOString() });
    const count =
      body?.meta?.queued ?? body?.queued ?? body?.webhook_deliveries?.length ?? body?.deliveries?.length ?? 0;
    setRecovered(`${count} failed deliver${count === 1 ? 'y' : 'ies'} queued again.`);
  });

  if (loadError) return <ErrorMessage error={loadError} />;
  if (!endpoint) return <p>Loading…</p>;
  const writes = session.canWrite();
  const http = (endpoint.type ?? 'http') === 'http';
  return (
    <>
      <p>
        <a href="#/webhooks">← All endpoints</a>
      </p>
      <div class="heading">
        <h1 class="url">{endpoint.url}</h1>
        {!http && <span class="badge type">{typeLabel(endpoint.type)}</span>}
        <StatusBadge status={endpoint.status} reason={endpoint.disabled_reason} />
        {endpoint.throttled && (
          <span class="badge disabled" title={endpoint.throttled_reason ?? undefined}>
            throttled
          </span>
        )}
        {endpoint.verified_at ? (
          <span class="badge verified">verified</span>
        ) : (
          <span class="muted">not verified</span>
        )}
      </div>
      <EndpointBanner endpoint={endpoint} />
      <p class="muted">
        {endpoint.description} · Events: {endpoint.events.includes('*') ? 'all' : endpoint.events.join(', ')}
      </p>

      <div class="grid">
        {!http && (
          <Panel title="Destination">
            <DestinationSummary type={endpoint.type} config={endpoint.config ?? {}} />
            <p class="hint">
              Messages carry the webhook-id, webhook-timestamp and webhook-signature headers: verify them with
              the signing secret as for a webhook.
            </p>
          </Panel>
        )}
        <Panel title="Signing secret">
          {secret ? <SecretValue value={secret} testId="secret" /> : <p class="muted">Hidden.</p>}
          {session.can('webhooks.secrets:reveal') && (
            <button type="button" onClick={() => void reveal.act()} disabled={reveal.busy}>
              Reveal
            </button>
          )}{' '}
          {writes && session.can('webhooks.secrets:rotate') && (
            <>
              <ConfirmButton
                label="Rotate"
                question="Issue a new signing secret?"
                confirm="Yes, rotate"
                busy={rotate.busy}
                onConfirm={() => void rotate.act()}
              />
              <p class="hint">After a rotation the old secret keeps working for 24 hours.</p>
            </>
          )}
          <ErrorMessage error={reveal.error ?? rotate.error} />
        </Panel>

        {writes && (
          <Panel title="Status">
            {endpoint.status === 'enabled' ? (
              <ConfirmButton
                label="Disable endpoint"
                question="Stop delivering to this endpoint?"
                confirm="Yes, disable"
                busy={toggle.busy}
                onConfirm={() => void toggle.act()}
              />
            ) : (
              <button type="button" onClick={() => void toggle.act()} disabled={toggle.busy}>
                Enable endpoint
              </button>
            )}{' '}
            {http && (
              <button type="button" onClick={() => void verify.act()} disabled={verify.busy}>
                Verify ownership
              </button>
            )}
            {verifyMessage && <p role="status">{verifyMessage}</p>}
            <ErrorMessage error={toggle.error ?? verify.error} />
            <ConfirmButton
              label="Delete endpoint"
              question="Delete this endpoint for good?"
              confirm="Yes, delete"
              busy={remove.busy}
              onConfirm={() => void remove.act()}
            />
            <ErrorMessage error={remove.error} />
          </Panel>
        )}

        <DeliverySettings endpoint={endpoint} onSaved={load} />

        <FilterEditor endpoint={endpoint} onSaved={load} />

        {http && <HeadersAuth endpoint={endpoint} onSaved={load} />}

        {writes && (
          <Panel title="Send a test event">
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void test.act();
              }}
            >
              <label for="test-event">Event</label>
              <select id="test-event" value={testEvent} onChange={(e) => setTestEvent(e.currentTarget.value)}>
                {(catalog.length ? catalog : [{ name: 'order.updated' } as CatalogEvent]).map((event) => (
                  <option key={event.name} value={event.name}>
                    {event.name}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={test.busy}>
                Send test event
              </button>
            </form>
            <ErrorMessage error={test.error} />
            {testResult && (
              <div class="result" data-testid="test-result" role="status">
                <p>
                  <span class={`badge ${testResult.status}`}>
                    {testResult.response_status ?? testResult.error ?? testResult.response_body}
                  </span>{' '}
                  in {testResult.duration_ms} ms
                </p>
                {!http && <p class="muted">Published to {testResult.url}</p>}
                <pre>{testResult.response_body}</pre>
              </div>
            )}
          </Panel>
        )}

        {writes && (
          <Panel title="Recover failed deliveries">
            <form
              onSubmit={(e) => {
                e.preventDefault();
                void recover.act();
              }}
            >
              <label for="recover-since">Since</label>
              <input
                id="recover-since"
                type="datetime-local"
                value={since}
                onInput={(e) => setSince(e.currentTarget.value)}
              />
              <button type="submit" disabled={recover.busy}>
                Recover
              </button>
            </form>
            {recovered && <p role="status">{recovered}</p>}
            <ErrorMessage error={recover.error} />
          </Panel>
        )}
      </div>

      {session.has('activity') && session.can('webhooks.logs:read') && <ActivityChart endpoint={uuid} />}

      {session.can('webhooks.logs:read') && <DeliveryLog endpoint={uuid} catalog={catalog} />}
    </>
  );
}
