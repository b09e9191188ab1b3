import { Fragment } from 'preact';
import { ConfigField, DestinationType } from '../api';

/** What the API shows in place of a secret; sent back, it keeps the stored one. */
export const REDACTED = '[redacted]';

const LABELS: Record<string, string> = {
  http: 'HTTPS (webhook)',
  rabbitmq: 'RabbitMQ',
  nats: 'NATS JetStream',
  mqtt: 'MQTT',
  redis_stream: 'Redis stream',
  listen: 'wharf listen session',
};

export const typeLabel = (name: string) => LABELS[name] ?? name;

/** The config as sent: empty fields left out, integers as numbers. */
export function configValues(type: DestinationType, values: Record<string, string>): Record<string, unknown> {
  const properties = type.config_schema.properties ?? {};
  const config: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = values[name] ?? '';
    if (value === '' && !(type.config_schema.required ?? []).includes(name)) continue;
    config[name] = field.type === 'integer' ? Number(value) : value;
  }
  return config;
}

/**
 * One input per field of a destination type's config, from its JSON Schema: required ones marked, secret
 * (writeOnly) ones as password inputs, integers as numbers, examples as placeholders.
 */
export function DestinationFields({
  type,
  values,
  onChange,
}: {
  type: DestinationType;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
}) {
  const required = type.config_schema.required ?? [];
  return (
    <fieldset class="destination-fields" data-testid="destination-fields">
      <legend>{typeLabel(type.name)}</legend>
      <p class="hint">{type.description}</p>
      {Object.entries(type.config_schema.properties ?? {}).map(([name, field]: [string, ConfigField]) => {
        const id = `config-${name}`;
        return (
          <div key={name}>
            <label for={id}>
              {name}
              {required.includes(name) ? ' *' : ''}
            </label>
            <input
              id={id}
              name={name}
              type={field.writeOnly ? 'password' : field.type === 'integer' ? 'number' : 'text'}
              aria-required={required.includes(name)}
              min={field.minimum}
              autocomplete="off"
              placeholder={field.examples?.length ? String(field.examples[0]) : undefined}
              value={values[name] ?? ''}
              onInput={(e) => onChange({ ...values, [name]: e.currentTarget.value })}
            />
            {field.description && <p class="hint">{field.description}</p>}
          </div>
        );
      })}
    </fieldset>
  );
}

/** A broker endpoint's destination: its type and config as the API shows it (secrets redacted). */
export function DestinationSummary({ type, config }: { type: string; config: Record<string, unknown> }) {
  return (
    <dl class="destination" data-testid="destination">
      <dt>Type</dt>
      <dd>{typeLabel(type)}</dd>
      {Object.entries(config).map(([name, value]) => (
        <Fragment key={name}>
          <dt>{name}</dt>
          <dd class={value === REDACTED ? 'muted' : undefined}>{String(value)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}
