import { ApiError } from '../common/api-error';
import { MAX_BODY_DEPTH, checkQuery, jsonDepthExceeds, parseJsonBody } from './input-guard';

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('input guard', () => {
  it('counts nesting without parsing, ignoring brackets inside strings and escaped quotes', () => {
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":{"b":[1]}}', 2)).toBe(true);
    expect(jsonDepthExceeds(`{"s":"${'['.repeat(100)}\\"{{{"}`, 1)).toBe(false);
  });

  it(`accepts ${MAX_BODY_DEPTH} levels and refuses one more with a 400`, () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    expect(parseJsonBody(nested(MAX_BODY_DEPTH))).toBeDefined();
    expect(refusal(() => parseJsonBody(nested(MAX_BODY_DEPTH + 1))).getStatus()).toBe(400);
  });

  it('points at a NUL or lone surrogate with an RFC 6901 pointer into the document as sent', () => {
    const error = refusal(() => parseJsonBody('{"a/b":{"c~d":["ok","x\\u0000"]}}'));
    expect(error.getStatus()).toBe(422);
    expect(error.errors[0].source?.pointer).toBe('/a~1b/c~0d/1');
    expect(refusal(() => parseJsonBody('{"email":"\\ud800@x.com"}')).errors[0].source?.pointer).toBe(
      '/email',
    );
    // A correctly paired surrogate is fine.
    expect(parseJsonBody('{"e":"\\ud83d\\ude00"}')).toEqual({ e: '😀' });
  });

  it('refuses __proto__ and constructor.prototype keys, and names bad query parameters', () => {
    expect(refusal(() => parseJsonBody('{"x":{"__proto__":{}}}')).errors[0].source?.pointer).toBe(
      '/x/__proto__',
    );
    expect(refusal(() => parseJsonBody('{"constructor":{"prototype":{}}}')).getStatus()).toBe(422);
    expect(parseJsonBody('{"constructor":1}')).toEqual({ constructor: 1 });
    expect(refusal(() => checkQuery({ name: ['ok', 'a\u0000'] })).errors[0].source?.parameter).toBe('name');
    expect(refusal(() => parseJsonBody('{"a":')).getStatus()).toBe(400);
  });
});
