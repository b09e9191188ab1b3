import { useEffect, useState } from 'preact/hooks';
import { CatalogEvent, RequestLog, api, isPublished, query, session, unwrap } from '../api';
import { useLive } from '../live';
import { ErrorMessage, Panel, formatTime, useAction } from '../ui';

const SHOWN = 50;

function Headers({ headers }: { headers: Record<string, string> | null }) {
  if (!headers) return <p class="muted">none</p>;
  return (
    <pre>
      {Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n')}
    </pre>
  );
}

function pretty(body: string | null): string {
  if (!body) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function LogDetail({ log }: { log: RequestLog }) {
  const [message, setMessage] = useState<string | null>(null);
  const resend = useAction(async () => {
    await api('POST', `/webhook-request-logs/${log.uuid}/resend`);
    // Its attempt arrives in the list over the live stream.
    setMessage('Queued again with the same webhook-id.');
  });
  const published = isPublished(log);
  return (
    <div class="detail" data-testid="log-detail">
      <div class="grid">
        <section>
          <h3>{published ? 'Published' : 'Request'}</h3>
          <p class="muted" data-testid="log-target">
            {published ? 'To' : 'POST'} {log.url} · attempt {log.attempt} · {formatTime(log.sent_at)}
          </p>
          <Headers headers={log.request_headers} />
          <pre data-testid="request-body">{pretty(log.request_body)}</pre>
        </section>
        <section>
          <h3>{published ? "Broker's answer" : 'Response'}</h3>
          <p data-testid="log-answer">
            {log.response_status !== null
              ? `Status ${log.response_status}`
              : published && !log.error
                ? `Acknowledged: ${log.response_body}`
                : `No response: ${log.error}`}{' '}
            · {log.duration_ms} ms
          </p>
          <Headers headers={log.response_headers} />
          <pre>{log.response_body}</pre>
        </section>
      </div>
      {!log.test && session.canWrite() && (
        <button type="button" onClick={() => void resend.act()} disabled={resend.busy}>
          Resend
        </button>
      )}
      {message && <p role="status">{message}</p>}
      <ErrorMessage error={resend.error} />
    </div>
  );
}

/** Newest first, filterable by status and event; new rows arrive over the tab's live stream (no polling). */
export function DeliveryLog({ endpoint, catalog }: { endpoint: string; catalog: CatalogEvent[] }) {
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const [logs, setLogs] = useState<RequestLog[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    api(
      'GET',
      `/webhook-request-logs${query({ webhook_endpoint_uuid: endpoint, status, event, sort: '-sent_at', limit: SHOWN })}`,
    )
      .then((body) => live && (setLogs(body.webhook_request_logs), setError(null)))
      .catch((caught: unknown) => live && setError(caught));
    return () => void (live = false);
  }, [endpoint, status, event]);

  useLive(
    (live) => {
      if (live.type !== 'request_log') return;
      const row = live.log;
      if (
        row.webhook_endpoint_uuid !== endpoint ||
        (status && row.status !== status) ||
        (event && row.event !== event)
      )
        return;
      setLogs((current) =>
        current === null || current.some((log) => log.uuid === row.uuid)
          ? current
          : [row, ...current]
              .sort((a, b) => new Date(b.sent_at).getTime() - new Date(a.sent_at).getTime())
              .slice(0, SHOWN),
      );
    },
    [endpoint, status, event],
  );

  return (
    <Panel title="Delivery log">
      <div class="filters">
        <label>
          Status{' '}
          <select
            value={status}
            onChange={(e) => setStatus(e.currentTarget.value)}
            aria-label="Filter by status"
          >
            <option value="">any</option>
            <option value="successful">successful</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <label>
          Event{' '}
          <select
            value={event}
            onChange={(e) => setEvent(e.currentTarget.value)}
            aria-label="Filter by event"
          >
            <option value="">any</option>
            {catalog.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
        <span class="muted">Live</span>
      </div>
      <ErrorMessage error={error} />
      {logs === null ? (
        <p>Loading…</p>
      ) : logs.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <div class="table-scroll">
          <table class="log cards">
            <thead>
              <tr>
                <th scope="col">Sent</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Result</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {logs.map((log) => [
                <tr key={log.uuid} class={`row ${log.status}`}>
                  <td class="sent">
                    <button
                      type="button"
                      class="link"
                      aria-expanded={open === log.uuid}
                      onClick={() => setOpen(open === log.uuid ? null : log.uuid)}
                    >
                      {formatTime(log.sent_at)}
                    </button>
                  </td>
                  <td class="event">
                    {log.event}
                    {log.test && <span class="badge test">test</span>}
                  </td>
                  <td class="attempt" data-label="Attempt">
                    {log.attempt}
                  </td>
                  <td class="result">
                    <span class={`badge ${log.status}`}>
                      {log.response_status ??
                        (isPublished(log) && !log.error ? log.response_body : 'no response')}
                    </span>
                    {log.error && <span class="reason muted">{log.error}</span>}
                    {isPublished(log) && <span class="reason muted target">{log.url}</span>}
                  </td>
                  <td class="duration">{log.duration_ms} ms</td>
                </tr>,
                open === log.uuid && (
                  <tr key={`${log.uuid}-detail`} class="opened">
                    <td colSpan={5}>
                      <LogDetail log={unwrap<RequestLog>(log, 'webhook_request_log')} />
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}
