import { useState } from 'preact/hooks';
import { Endpoint, EndpointAuth, api, session } from '../api';
import { ErrorMessage, Panel, useAction } from '../ui';

/** What the API shows in place of a header value or secret; sent back, it keeps the stored one. */
const REDACTED = '[redacted]';
const AUTH_FIELDS: Record<EndpointAuth['type'], { name: string; label: string; secret?: boolean }[]> = {
  none: [],
  basic: [
    { name: 'username', label: 'Username' },
    { name: 'password', label: 'Password', secret: true },
  ],
  bearer: [{ name: 'token', label: 'Token', secret: true }],
  oauth2_client_credentials: [
    { name: 'token_url', label: 'Token URL' },
    { name: 'client_id', label: 'Client ID' },
    { name: 'client_secret', label: 'Client secret', secret: true },
    { name: 'scope', label: 'Scope (optional)' },
    { name: 'audience', label: 'Audience (optional)' },
  ],
};
const AUTH_LABELS: Record<EndpointAuth['type'], string> = {
  none: 'None',
  basic: 'Basic',
  bearer: 'Bearer token',
  oauth2_client_credentials: 'OAuth2 client credentials',
};

type Row = { name: string; value: string };

/**
 * The endpoint's static headers (names shown, values redacted until revealed) and how deliveries
 * authenticate (type and non-secret fields). Editing sends redacted values and empty secrets back as they
 * are: the API keeps the stored ones.
 */
export function HeadersAuth({ endpoint, onSaved }: { endpoint: Endpoint; onSaved: () => Promise<void> }) {
  const [revealed, setRevealed] = useState<Record<string, string> | null>(null);
  const [editing, setEditing] = useState(false);
  const [rows, setRows] = useState<Row[]>([]);
  const [auth, setAuth] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const headers = endpoint.headers ?? {};
  const current = endpoint.auth ?? { type: 'none' };

  const reveal = useAction(async () => {
    setRevealed((await api('GET', `/webhook-endpoints/${endpoint.uuid}/headers`)).headers);
  });
  const edit = () => {
    setRows(Object.keys(headers).map((name) => ({ name, value: revealed?.[name] ?? REDACTED })));
    setAuth(Object.fromEntries(Object.entries(current).map(([k, v]) => [k, String(v ?? '')])));
    setSaved(false);
    setEditing(true);
  };
  const save = useAction(async () => {
    const type = (auth.type ?? 'none') as EndpointAuth['type'];
    const fields = AUTH_FIELDS[type].filter((field) => (auth[field.name] ?? '').trim() !== '');
    await api('PUT', `/webhook-endpoints/${endpoint.uuid}`, {
      webhook_endpoint: {
        headers: Object.fromEntries(rows.filter((r) => r.name.trim()).map((r) => [r.name.trim(), r.value])),
        auth:
          type === 'none' ? null : { type, ...Object.fromEntries(fields.map((f) => [f.name, auth[f.name]])) },
      },
    });
    setRevealed(null);
    await onSaved();
    setEditing(false);
    setSaved(true);
  });
  const setRow = (index: number, change: Partial<Row>) =>
    setRows(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));

  if (!editing)
    return (
      <Panel title="Headers & auth">
        {Object.keys(headers).length ? (
          <dl class="pairs" data-testid="headers">
            {Object.keys(headers).map((name) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  <code>{revealed ? (revealed[name] ?? '') : '••••••'}</code>
                </dd>
              </div>
            ))}
          </dl>
        ) : (
          <p class="muted">No static headers.</p>
        )}
        <p data-testid="auth">
          Auth: <strong>{AUTH_LABELS[current.type] ?? current.type}</strong>
          {AUTH_FIELDS[current.type]
            ?.filter((field) => !field.secret && (current as Record<string, unknown>)[field.name])
            .map((field) => (
              <span key={field.name} class="muted">
                {' '}
                · {field.label.replace(' (optional)', '')}:{' '}
                {String((current as Record<string, unknown>)[field.name])}
              </span>
            ))}
        </p>
        {Object.keys(headers).length > 0 && !revealed && session.can('webhooks.secrets:reveal') && (
          <button type="button" onClick={() => void reveal.act()} disabled={reveal.busy}>
            Reveal values
          </button>
        )}{' '}
        {session.canWrite() && (
          <button type="button" class="secondary" onClick={edit}>
            Edit headers & auth
          </button>
        )}
        {saved && <p role="status">Headers and auth saved.</p>}
        <ErrorMessage error={reveal.error} />
      </Panel>
    );

  const type = (auth.type ?? 'none') as EndpointAuth['type'];
  return (
    <Panel title="Headers & auth">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save.act();
        }}
      >
        <fieldset>
          <legend>Static headers</legend>
          {rows.map((row, index) => (
            <div class="header-row" key={index}>
              <input
                aria-label={`Header ${index + 1} name`}
                placeholder="X-Api-Key"
                value={row.name}
                onInput={(e) => setRow(index, { name: e.currentTarget.value })}
              />
              <input
                aria-label={`Header ${index + 1} value`}
                value={row.value}
                onInput={(e) => setRow(index, { value: e.currentTarget.value })}
              />
              <button
                type="button"
                class="secondary"
                onClick={() => setRows(rows.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </div>
          ))}
          <button type="button" class="secondary" onClick={() => setRows([...rows, { name: '', value: '' }])}>
            Add header
          </button>
          <p class="hint">A value left as {REDACTED} keeps the stored one.</p>
        </fieldset>
        <label for="auth-type">Auth</label>
        <select id="auth-type" value={type} onChange={(e) => setAuth({ type: e.currentTarget.value })}>
          {Object.entries(AUTH_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {AUTH_FIELDS[type].map((field) => (
          <div key={field.name}>
            <label for={`auth-${field.name}`}>{field.label}</label>
            <input
              id={`auth-${field.name}`}
              type={field.secret ? 'password' : 'text'}
              autocomplete="off"
              placeholder={field.secret && current.type === type ? 'unchanged' : ''}
              value={auth[field.name] ?? ''}
              onInput={(e) => setAuth({ ...auth, [field.name]: e.currentTarget.value })}
            />
          </div>
        ))}
        <button type="submit" disabled={save.busy}>
          Save headers & auth
        </button>{' '}
        <button type="button" class="secondary" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </form>
      <ErrorMessage error={save.error} />
    </Panel>
  );
}
