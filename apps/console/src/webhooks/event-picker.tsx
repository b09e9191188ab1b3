import { CatalogEvent } from '../api';

/** Events grouped by the prefix of their names (`warehouse_dock`), with an "all events" switch that stands for `*`. */
export function EventPicker({
  catalog,
  value,
  onChange,
}: {
  catalog: CatalogEvent[];
  value: string[];
  onChange: (events: string[]) => void;
}) {
  const all = value.includes('*');
  const groups = new Map<string, CatalogEvent[]>();
  for (const event of catalog) {
    const prefix = event.name.split('.')[0];
    groups.set(prefix, [...(groups.get(prefix) ?? []), event]);
  }
  const toggle = (name: string, on: boolean) =>
    onChange(on ? [...value.filter((v) => v !== name), name] : value.filter((v) => v !== name));
  return (
    <fieldset class="events">
      <legend>Events</legend>
      <label class="all">
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => onChange(e.currentTarget.checked ? ['*'] : [])}
        />{' '}
        All events
      </label>
      {!all &&
        [...groups].map(([prefix, events]) => (
          <fieldset key={prefix} class="group">
            <legend>{prefix}</legend>
            {events.map((event) => (
              <label key={event.name} title={event.description}>
                <input
                  type="checkbox"
                  name="event"
                  value={event.name}
                  checked={value.includes(event.name)}
                  onChange={(e) => toggle(event.name, e.currentTarget.checked)}
                />{' '}
                {event.name}
              </label>
            ))}
          </fieldset>
        ))}
    </fieldset>
  );
}
