import pluralize from 'pluralize';

/** `warehouseSection` / `warehouse_section` → `warehouse-section`, as Ember's `dasherize`. */
export function dasherize(name: string): string {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

/** The collection path segment: the dasherized plural, as Ember's RESTAdapter builds it. */
export function pluralPath(resource: string): string {
  const dashed = dasherize(resource);
  const parts = dashed.split('-');
  parts[parts.length - 1] = pluralize.plural(parts[parts.length - 1]);
  return parts.join('-');
}

/** JSON root keys: dashes become underscores (`warehouse_section` / `warehouse_sections`). */
export function rootKeys(resource: string): { singular: string; plural: string } {
  return {
    singular: dasherize(resource).replace(/-/g, '_'),
    plural: pluralPath(resource).replace(/-/g, '_'),
  };
}

/**
 * The camelCase plural a stock Ember RESTAdapter requests (`warehouseSections`), served as an alias of
 * the dasherized path; undefined when the two are the same.
 */
export function pluralAlias(resource: string): string | undefined {
  const path = pluralPath(resource);
  const alias = path.replace(/-([a-z\d])/g, (_, letter: string) => letter.toUpperCase());
  return alias === path ? undefined : alias;
}
