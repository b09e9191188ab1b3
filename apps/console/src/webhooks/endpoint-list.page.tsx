import { useEffect, useState } from 'preact/hooks';
import { ActivityChart } from '../activity-chart';
import { Endpoint, api, query, session } from '../api';
import { useLive } from '../live';
import { ErrorMessage, Panel, StatusBadge } from '../ui';
import { CreateEndpoint } from './endpoint-create';
import { AttentionNotice } from './endpoint-banner';

interface Row extends Endpoint {
  successRate?: string;
}

async function successRate(endpoint: string): Promise<string> {
  const since = new Date(Date.now() - 24 * 3600 * 1000).toISOString();
  const base = { webhook_endpoint_uuid: endpoint, test: false, sent_at_gte: since, limit: 1 };
  const [all, ok] = await Promise.all([
    api('GET', `/webhook-request-logs${query(base)}`),
    api('GET', `/webhook-request-logs${query({ ...base, status: 'successful' })}`),
  ]);
  const total = all.meta?.total ?? 0;
  return total ? `${Math.round((100 * (ok.meta?.total ?? 0)) / total)}% of ${total}` : 'no deliveries';
}

export function EndpointListPage() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);

  const load = async () => {
    try {
      const body = await api('GET', '/webhook-endpoints?limit=100&sort=-created_at');
      const endpoints: Row[] = body.webhook_endpoints;
      setRows(endpoints);
      const rates = await Promise.all(endpoints.map((e) => successRate(e.uuid).catch(() => '—')));
      setRows(endpoints.map((e, i) => ({ ...e, successRate: rates[i] })));
    } catch (caught) {
      setError(caught);
    }
  };
  useEffect(() => void load(), []);
  // Disabled, throttled or verified elsewhere (the worker, another tab): the row changes in place.
  useLive((event) => {
    if (event.type !== 'endpoint') return;
    setRows(
      (current) =>
        current &&
        current.map((row) => (row.uuid === event.endpoint.uuid ? { ...row, ...event.endpoint } : row)),
    );
  });

  return (
    <>
      <div class="heading">
        <h1>Webhooks</h1>
        {session.canWrite() && (
          <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
            {creating ? 'Close' : 'Add endpoint'}
          </button>
        )}
      </div>
      {session.has('activity') && session.can('webhooks.logs:read') && <ActivityChart />}
      {creating && <CreateEndpoint onCreated={() => void load()} />}
      <ErrorMessage error={error} />
      {rows && <AttentionNotice endpoints={rows} />}
      <Panel title="Endpoints">
        {rows === null ? (
          <p>Loading…</p>
        ) : rows.length === 0 ? (
          <p>No endpoints yet. Add one to receive events.</p>
        ) : (
          <div class="table-scroll">
            <table class="endpoints cards">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col">Verified</th>
                  <th scope="col">Success (24 h)</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.uuid}>
                    <td class="url">
                      <a href={`#/webhooks/${row.uuid}`}>{row.url}</a>
                      {row.description && <div class="muted">{row.description}</div>}
                    </td>
                    <td class="events" data-label="Events">
                      {row.events.includes('*') ? 'All events' : row.events.join(', ')}
                    </td>
                    <td class="status">
                      <StatusBadge status={row.status} reason={row.disabled_reason} />
                      {row.throttled && (
                        <span class="badge disabled" title={row.throttled_reason ?? undefined}>
                          throttled
                        </span>
                      )}
                      {row.disabled_reason && <div class="reason muted">{row.disabled_reason}</div>}
                    </td>
                    <td class="verified">
                      {row.verified_at ? (
                        <span class="badge verified">verified</span>
                      ) : (
                        <span class="muted">not verified</span>
                      )}
                    </td>
                    <td class="success" data-label="Success (24 h)">
                      {row.successRate ?? '…'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </>
  );
}
