/**
 * Where a field problem points (JSON:API `source.pointer`): `/data/attributes/<field>`, nested
 * `/data/attributes/sections/0/name`. Ember Data and other JSON:API clients map exactly this form onto
 * the record's errors, whatever the body's own shape (`{"warehouse": {…}}` or flat).
 */
export const ATTRIBUTES_POINTER = '/data/attributes';

/** The pointer of the body itself, for problems no field owns. */
export const BODY_POINTER = '/data';

export function attributePointer(...path: (string | number)[]): string {
  return [ATTRIBUTES_POINTER, ...path].join('/');
}
