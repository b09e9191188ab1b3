import { PermissionEntry } from './api';

/** What a key may do with one resource (Stripe's restricted keys): write includes read. */
export type Level = 'none' | 'read' | 'write';

interface Scope {
  /** `inventory.warehouses` */
  scope: string;
  read: boolean;
  write: boolean;
}

interface Group {
  extension: string;
  scopes: Scope[];
  /** The extension's other actions (`fleet.orders:dispatch`), each a checkbox. */
  actions: PermissionEntry[];
}

const split = (name: string) => {
  const colon = name.lastIndexOf(':');
  return { scope: name.slice(0, colon), action: name.slice(colon + 1) };
};

/** The catalog by extension: each resource's read and write, and the other actions. */
export function permissionGroups(catalog: PermissionEntry[]): Group[] {
  const groups = new Map<string, Group>();
  for (const entry of catalog) {
    const group = groups.get(entry.extension) ?? { extension: entry.extension, scopes: [], actions: [] };
    groups.set(entry.extension, group);
    const { scope, action } = split(entry.name);
    if (action !== 'read' && action !== 'write') {
      group.actions.push(entry);
      continue;
    }
    let row = group.scopes.find((candidate) => candidate.scope === scope);
    if (!row) group.scopes.push((row = { scope, read: false, write: false }));
    row[action] = true;
  }
  return [...groups.values()];
}

/** The permissions a choice stands for: names only, never a wildcard (least privilege, spelled out). */
export function chosenPermissions(
  groups: Group[],
  levels: Record<string, Level>,
  actions: string[],
): string[] {
  const names: string[] = [];
  for (const group of groups) {
    for (const { scope, read, write } of group.scopes) {
      const level = levels[scope] ?? 'read';
      if (level !== 'none' && read) names.push(`${scope}:read`);
      if (level === 'write' && write) names.push(`${scope}:write`);
    }
  }
  return [...names, ...actions];
}

/** A resource's name in the list: its scope without the extension (`warehouses`), spaced. */
const label = (group: Group, scope: string) =>
  (scope.startsWith(`${group.extension}.`) ? scope.slice(group.extension.length + 1) : scope).replace(
    /_/g,
    ' ',
  );

/** Permissions grouped by extension: None / Read / Write per resource, a checkbox per other action. */
export function PermissionPicker({
  groups,
  levels,
  actions,
  onLevels,
  onActions,
}: {
  groups: Group[];
  levels: Record<string, Level>;
  actions: string[];
  onLevels: (levels: Record<string, Level>) => void;
  onActions: (actions: string[]) => void;
}) {
  const all = (level: Level) =>
    onLevels(Object.fromEntries(groups.flatMap((g) => g.scopes.map((s) => [s.scope, level]))));
  return (
    <fieldset class="permissions">
      <legend>Permissions</legend>
      <p class="hint">
        Read by default: choose what the key may do with each resource.{' '}
        <button type="button" class="link" onClick={() => all('none')}>
          None to all
        </button>{' '}
        ·{' '}
        <button type="button" class="link" onClick={() => all('read')}>
          Read to all
        </button>
      </p>
      {groups.map((group) => (
        <fieldset key={group.extension} class="group">
          <legend>{group.extension}</legend>
          {group.scopes.map(({ scope, read, write }) => (
            <div key={scope} class="permission" role="radiogroup" aria-label={scope}>
              <span class="resource">{label(group, scope)}</span>
              {(['none', 'read', 'write'] as const)
                .filter((level) => level === 'none' || (level === 'read' ? read : write))
                .map((level) => (
                  <label key={level}>
                    <input
                      type="radio"
                      name={`permission-${scope}`}
                      checked={(levels[scope] ?? 'read') === level}
                      onChange={() => onLevels({ ...levels, [scope]: level })}
                    />{' '}
                    {level === 'none' ? 'None' : level === 'read' ? 'Read' : 'Write'}
                  </label>
                ))}
            </div>
          ))}
          {group.actions.map((action) => (
            <label key={action.name} title={action.description} class="action">
              <input
                type="checkbox"
                checked={actions.includes(action.name)}
                onChange={(e) =>
                  onActions(
                    e.currentTarget.checked
                      ? [...actions, action.name]
                      : actions.filter((name) => name !== action.name),
                  )
                }
              />{' '}
              {action.name}
            </label>
          ))}
        </fieldset>
      ))}
    </fieldset>
  );
}
