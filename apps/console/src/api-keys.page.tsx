import { useEffect, useState } from 'preact/hooks';
import { ApiKeyRow, api } from './api';
import { ConfirmButton, ErrorMessage, Panel, SecretValue, formatTime, useAction } from './ui';

/** The company's API keys (full sessions only): create one with a name (shown once), list, revoke. */
export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKeyRow[] | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<ApiKeyRow | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    api('GET', '/api-keys')
      .then((body) => setKeys(body.api_keys))
      .catch(setError);
  useEffect(() => void load(), []);
  const create = useAction(async () => {
    const body = await api('POST', '/api-keys', { api_key: { name: name.trim() || undefined } });
    setCreated(body.api_key);
    setName('');
    await load();
  });
  const revoke = useAction(async (uuid: string) => {
    await api('DELETE', `/api-keys/${uuid}`);
    await load();
  });
  return (
    <>
      <h1>API keys</h1>
      <Panel title="Create a key">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void create.act();
          }}
        >
          <label for="key-name">Name</label>
          <div class="field-row">
            <input
              id="key-name"
              value={name}
              maxLength={255}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            <button type="submit" disabled={create.busy}>
              Create key
            </button>
          </div>
        </form>
        <ErrorMessage error={create.error} />
        {created?.key && (
          <>
            <p>Copy the key now: it is shown only this once.</p>
            <SecretValue value={created.key} testId="new-api-key" />
          </>
        )}
      </Panel>
      <Panel title="Keys">
        <ErrorMessage error={error ?? revoke.error} />
        {keys === null ? (
          <p>Loading…</p>
        ) : (
          <div class="table-scroll">
            <table class="keys cards">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.uuid} data-testid={`api-key-${key.uuid}`}>
                    <td class="name">{key.name ?? '—'}</td>
                    <td class="key">
                      <code>
                        {key.prefix}…{key.last_four}
                      </code>
                    </td>
                    <td class="created" data-label="Created">
                      {formatTime(key.created_at)}
                    </td>
                    <td class="used" data-label="Last used">
                      {formatTime(key.last_used_at)}
                    </td>
                    <td class="status">
                      {key.revoked_at ? (
                        <span class="badge disabled">revoked</span>
                      ) : (
                        <ConfirmButton
                          label="Revoke"
                          question={`Revoke the key ${key.name ?? key.last_four}?`}
                          confirm="Yes, revoke"
                          busy={revoke.busy}
                          onConfirm={() => void revoke.act(key.uuid)}
                        />
                      )}
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
