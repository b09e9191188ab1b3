import { createHash } from 'node:crypto';
import { ApiError } from '../common/api-error';
import { bodyHash, canonicalJson, idempotencyKeyOf, storedHeaders } from './idempotency-key';

describe('idempotency keys', () => {
  it('accepts 1–255 printable ASCII characters and refuses anything else with a 400 naming the header', () => {
    expect(idempotencyKeyOf('a')).toBe('a');
    expect(idempotencyKeyOf('order 42 / try #1')).toBe('order 42 / try #1');
    expect(idempotencyKeyOf('k'.repeat(255))).toBe('k'.repeat(255));
    for (const bad of ['', 'k'.repeat(256), 'tab\there', 'caf\u00e9', 'nul\u0000']) {
      let error: unknown;
      try {
        idempotencyKeyOf(bad);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).errors[0]).toMatchObject({
        status: '400',
        source: { header: 'Idempotency-Key' },
      });
    }
  });

  it('compares bodies by canonical JSON: member order and spacing do not count, values and array order do', () => {
    expect(canonicalJson({ b: [2, { y: 1, x: null }], a: 'é', c: 1.5 })).toBe(
      '{"a":"é","b":[2,{"x":null,"y":1}],"c":1.5}',
    );
    expect(bodyHash({ a: 1, b: 2 })).toBe(bodyHash(JSON.parse('{ "b" : 2, "a" : 1 }')));
    expect(bodyHash({ a: 1, b: 2 })).not.toBe(bodyHash({ a: 1, b: 3 }));
    expect(bodyHash([1, 2])).not.toBe(bodyHash([2, 1]));
    expect(bodyHash(undefined)).not.toBe(bodyHash({}));
    expect(canonicalJson({ z: undefined, b: [], a: {}, c: [undefined] })).toBe('{"a":{},"b":[],"c":[null]}');
    expect(bodyHash({ b: 2, a: 1 })).toBe(createHash('sha256').update('{"a":1,"b":2}').digest('hex'));
  });

  it('stores the answer’s own headers, not those of one exchange', () => {
    expect(
      storedHeaders({
        'content-type': 'application/json; charset=utf-8',
        location: '/int/v1/locations/1',
        'x-request-id': 'r1',
        'x-ratelimit-remaining': 5,
        'access-control-allow-origin': '*',
        vary: 'Origin',
        'content-length': 10,
      }),
    ).toEqual({ 'content-type': 'application/json; charset=utf-8', location: '/int/v1/locations/1' });
  });
});
