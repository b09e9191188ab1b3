import { ApiError } from '../common/api-error';

/**
 * How deeply a request body may nest objects and arrays (`{"a": {"b": 1}}` is 2 deep). Deeper bodies are
 * refused before they are parsed: recursive validators and serialisers would otherwise exhaust the stack.
 */
export const MAX_BODY_DEPTH = 32;

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function pointerOf(path: (string | number)[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored (PostgreSQL refuses NUL; validators throw on lone surrogates). */
export function stringProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'is not well-formed Unicode (it has a lone surrogate)';
  return undefined;
}

/**
 * The nesting depth of a JSON text, counted without parsing it (strings skipped), stopping as soon as it
 * passes `limit`: so a 1 MB body of brackets costs one linear scan, not a parse and a recursion.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Checks every key and string of a parsed body, without recursion: a NUL or a lone surrogate is a 422 whose
 * pointer names the value in the document as sent, and so are the keys that pollute prototypes wherever the
 * body is merged (`__proto__`, and `constructor` holding a `prototype`), whatever the route does with them.
 */
export function checkBody(body: unknown): void {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: body, path: [] }];
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem) throw ApiError.invalid(pointerOf(path), `The value ${problem}.`);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: [...path, index] }));
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        const problem = stringProblem(key);
        if (problem) throw ApiError.invalid(pointerOf([...path, key]), `The field name ${problem}.`);
        const field = (value as Record<string, unknown>)[key];
        if (
          key === '__proto__' ||
          (key === 'constructor' &&
            typeof field === 'object' &&
            field !== null &&
            Object.hasOwn(field, 'prototype'))
        )
          throw ApiError.invalid(pointerOf([...path, key]), `${key} is not allowed as a field name.`);
        stack.push({ value: (value as Record<string, unknown>)[key], path: [...path, key] });
      }
    }
  }
}

/** Checks every query parameter's name and value(s): a NUL or a lone surrogate is a 400 naming it. */
export function checkQuery(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  for (const name of Object.keys(query)) {
    const problem = stringProblem(name);
    if (problem) throw ApiError.badParameter(name, `A query parameter name ${problem}.`);
    const raw = (query as Record<string, unknown>)[name];
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const valueProblem = typeof value === 'string' ? stringProblem(value) : undefined;
      if (valueProblem) throw ApiError.badParameter(name, `${name} ${valueProblem}.`);
    }
  }
}

/** The parser of JSON bodies: depth first (on the text), then JSON, then every key and string. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '')
    throw ApiError.of(400, 'The body is empty but the content-type says JSON: send a JSON object.');
  if (jsonDepthExceeds(text, MAX_BODY_DEPTH)) {
    throw ApiError.of(400, `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep.`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw ApiError.of(400, `The body is not valid JSON: ${(error as Error).message}.`);
  }
  checkBody(body);
  return body;
}
