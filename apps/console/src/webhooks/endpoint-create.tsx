import { useEffect, useState } from 'preact/hooks';
import { CatalogEvent, DestinationType, Endpoint, api, unwrap } from '../api';
import { ErrorMessage, Panel, SecretValue, useAction } from '../ui';
import { DestinationFields, configValues, typeLabel } from './destination-fields';
import { EventPicker } from './event-picker';

export function CreateEndpoint({ onCreated }: { onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<string[]>(['*']);
  const [catalog, setCatalog] = useState<CatalogEvent[]>([]);
  const [created, setCreated] = useState<Endpoint | null>(null);
  const [types, setTypes] = useState<DestinationType[]>([]);
  const [type, setType] = useState('http');
  const [config, setConfig] = useState<Record<string, string>>({});
  useEffect(() => {
    void api('GET', '/webhook-events').then((body) => setCatalog(body.webhook_events ?? body.events ?? []));
    void api('GET', '/destination-types').then((body) => setTypes(body.destination_types ?? []));
  }, []);
  const broker = type === 'http' ? undefined : types.find((t) => t.name === type);
  const { act, busy, error } = useAction(async () => {
    const destination = broker ? { type, config: configValues(broker, config) } : { url };
    const body = await api('POST', '/webhook-endpoints', {
      webhook_endpoint: { ...destination, description: description || undefined, events },
    });
    setCreated(unwrap<Endpoint>(body, 'webhook_endpoint'));
    onCreated();
  });

  if (created) {
    return (
      <Panel title="Endpoint created">
        <p>
          Copy the signing secret now: it is shown only once here (you can reveal it later on the endpoint
          page).
        </p>
        <SecretValue value={created.secret ?? ''} testId="new-secret" />
        <a href={`#/webhooks/${created.uuid}`}>Open the endpoint</a>
      </Panel>
    );
  }
  return (
    <Panel title="Add endpoint">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void act();
        }}
      >
        {types.length > 1 && (
          <>
            <label for="endpoint-type">Destination</label>
            <select
              id="endpoint-type"
              value={type}
              onChange={(e) => {
                setType(e.currentTarget.value);
                setConfig({});
              }}
            >
              {types.map((t) => (
                <option key={t.name} value={t.name}>
                  {typeLabel(t.name)}
                </option>
              ))}
            </select>
          </>
        )}
        {broker ? (
          <DestinationFields type={broker} values={config} onChange={setConfig} />
        ) : (
          <>
            <label for="endpoint-url">Endpoint URL</label>
            <input
              id="endpoint-url"
              type="url"
              required
              value={url}
              placeholder="https://example.com/webhooks"
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </>
        )}
        <label for="endpoint-description">Description</label>
        <input
          id="endpoint-description"
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <EventPicker catalog={catalog} value={events} onChange={setEvents} />
        <button type="submit" disabled={busy || !events.length}>
          Create endpoint
        </button>
        <ErrorMessage error={error} />
      </form>
    </Panel>
  );
}
