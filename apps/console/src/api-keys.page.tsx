import { useEffect, useState } from 'preact/hooks';
import { ApiKeyRow, PermissionEntry, api, session } from './api';
import { Level, PermissionPicker, chosenPermissions, permissionGroups } from './permission-picker';
import { ConfirmButton, ErrorMessage, Panel, SecretValue, formatTime, useAction } from './ui';

/** A key's permissions as the list shows them. */
function Permissions({ permissions }: { permissions: string[] }) {
  if (permissions.includes('*')) return <span class="badge">all</span>;
  return (
    <>
      {permissions.map((permission) => (
        <code key={permission} class="permission">
          {permission}
        </code>
      ))}
    </>
  );
}

/**
 * The company's API keys (full sessions only): create one with a name and its permissions (shown once),
 * list them with their permissions, revoke. A restricted key reads by default, resource by resource; a key
 * may get only permissions the signed-in key holds (full access only from a key that has it).
 */
export function ApiKeysPage() {
  const [keys, setKeys] = useState<ApiKeyRow[] | null>(null);
  const [name, setName] = useState('');
  const [catalog, setCatalog] = useState<PermissionEntry[]>([]);
  const full = session.info()?.permissions.includes('*') ?? false;
  const [access, setAccess] = useState<'restricted' | 'full'>(full ? 'full' : 'restricted');
  const [levels, setLevels] = useState<Record<string, Level>>({});
  const [actions, setActions] = useState<string[]>([]);
  const [created, setCreated] = useState<ApiKeyRow | null>(null);
  const [error, setError] = useState<unknown>(null);
  const writes = session.can('api_keys:write');
  const load = () =>
    api('GET', '/api-keys')
      .then((body) => setKeys(body.api_keys))
      .catch(setError);
  useEffect(() => {
    void load();
    void api<{ permissions: PermissionEntry[] }>('GET', '/permissions')
      .then((body) => setCatalog(body.permissions.filter((entry) => session.can(entry.name))))
      .catch(setError);
  }, []);
  const groups = permissionGroups(catalog);
  const create = useAction(async () => {
    const permissions = access === 'full' ? ['*'] : chosenPermissions(groups, levels, actions);
    if (!permissions.length) throw new Error('Choose at least one permission.');
    const body = await api('POST', '/api-keys', { api_key: { name: name.trim() || undefined, permissions } });
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
      {writes && (
        <Panel title="Create a key">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void create.act();
            }}
          >
            <fieldset class="access">
              <legend>Access</legend>
              <label>
                <input
                  type="radio"
                  name="key-access"
                  checked={access === 'restricted'}
                  onChange={() => setAccess('restricted')}
                />{' '}
                Restricted: the permissions chosen below
              </label>
              {full && (
                <label>
                  <input
                    type="radio"
                    name="key-access"
                    checked={access === 'full'}
                    onChange={() => setAccess('full')}
                  />{' '}
                  Full access: every permission
                </label>
              )}
            </fieldset>
            {access === 'restricted' && (
              <PermissionPicker
                groups={groups}
                levels={levels}
                actions={actions}
                onLevels={setLevels}
                onActions={setActions}
              />
            )}
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
      )}
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
                  <th scope="col">Permissions</th>
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
                    <td class="permissions" data-label="Permissions">
                      <Permissions permissions={key.permissions} />
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
                      ) : !writes ? null : (
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
