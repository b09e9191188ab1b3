import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, Endpoint, RequestLog, api, query, session } from '../api';
import { ErrorMessage, Panel, formatTime, useAction } from '../ui';

const FILTER_POINTER = '/data/attributes/filter';

interface Verdict {
  matches: boolean;
  subscribed: boolean;
  failed_clause: { pointer: string; clause: unknown } | null;
}

/** A JSON pointer into the filter, as a reader follows it: `data.status › $inn`. */
const where = (pointer: string) =>
  pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join(' › ') || 'the filter';

/** The 422's errors that point into the filter, each at its place; other errors as the API's detail. */
function FilterProblems({ error }: { error: unknown }) {
  if (!(error instanceof ApiFailure) || error.status !== 422) return <ErrorMessage error={error} />;
  return (
    <ul class="error" role="alert" data-testid="filter-errors">
      {error.errors.map((e, index) => (
        <li key={index}>
          {e.pointer?.startsWith(FILTER_POINTER) ? (
            <>
              <code>{where(e.pointer.slice(FILTER_POINTER.length))}</code>: {e.detail}
            </>
          ) : (
            e.detail
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The endpoint's payload filter as JSON: saved with the API's checks (422 errors shown at their place in
 * the filter), and tried on a recent event of the company before saving (filter-test with the draft).
 */
export function FilterEditor({ endpoint, onSaved }: { endpoint: Endpoint; onSaved: () => Promise<void> }) {
  const [text, setText] = useState(endpoint.filter ? JSON.stringify(endpoint.filter, null, 2) : '');
  const [recent, setRecent] = useState<RequestLog[]>([]);
  const [eventId, setEventId] = useState('');
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    // Recent events of the company (any endpoint's log): those this filter would drop are worth trying too.
    void api('GET', `/webhook-request-logs${query({ test: false, limit: 25 })}`)
      .then((body) => {
        const seen = new Set<string>();
        const rows = (body.webhook_request_logs as RequestLog[]).filter(
          (row) => !seen.has(row.event_id) && Boolean(seen.add(row.event_id)),
        );
        setRecent(rows);
        setEventId((current) => current || rows[0]?.event_id || '');
      })
      .catch(() => setRecent([]));
  }, [endpoint.uuid]);

  /** The draft as JSON (empty: no filter); a syntax error is the user's to fix before anything is sent. */
  const draft = (): Record<string, unknown> | null => {
    if (!text.trim()) return null;
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch (caught) {
      throw new Error(`The filter is not valid JSON: ${(caught as Error).message}`);
    }
  };
  const save = useAction(async () => {
    setSaved(false);
    await api('PUT', `/webhook-endpoints/${endpoint.uuid}`, { webhook_endpoint: { filter: draft() } });
    await onSaved();
    setSaved(true);
  });
  const test = useAction(async () => {
    setVerdict(null);
    const filter = draft();
    setVerdict(
      await api<Verdict>('POST', `/webhook-endpoints/${endpoint.uuid}/filter-test`, {
        event_id: eventId,
        ...(filter ? { filter } : {}),
      }),
    );
  });

  return (
    <Panel title="Payload filter">
      <p class="hint">
        Only events whose payload matches are delivered, e.g.{' '}
        <code>{'{"data.status": {"$in": ["completed"]}}'}</code>. Empty: every subscribed event.
      </p>
      <label for="filter-json">Filter (JSON)</label>
      <textarea
        id="filter-json"
        rows={6}
        spellcheck={false}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {session.canWrite() && (
        <button type="button" onClick={() => void save.act()} disabled={save.busy}>
          Save filter
        </button>
      )}
      {saved && <p role="status">Filter saved.</p>}
      <FilterProblems error={save.error} />

      <label for="filter-event">Test against a recent event</label>
      {recent.length ? (
        <select id="filter-event" value={eventId} onChange={(e) => setEventId(e.currentTarget.value)}>
          {recent.map((row) => (
            <option key={row.event_id} value={row.event_id}>
              {row.event} · {formatTime(row.sent_at)}
            </option>
          ))}
        </select>
      ) : (
        <p class="muted">No recent events yet.</p>
      )}
      <button type="button" onClick={() => void test.act()} disabled={test.busy || !eventId}>
        Test filter
      </button>
      <FilterProblems error={test.error} />
      {verdict && (
        <p class={verdict.matches ? 'ok' : 'warning'} role="status" data-testid="filter-verdict">
          {verdict.matches ? 'Matches' : 'Does not match'}
          {verdict.failed_clause && (
            <>
              : the clause at <code>{where(verdict.failed_clause.pointer)}</code> (
              <code>{JSON.stringify(verdict.failed_clause.clause)}</code>) is false
            </>
          )}
          {!verdict.subscribed && ' — and the endpoint is not subscribed to this event'}.
        </p>
      )}
    </Panel>
  );
}
