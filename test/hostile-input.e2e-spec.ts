import { TestCompany, createCompany } from './support/accounts';
import { dbState, pointerField } from './support/db-state';
import { HttpResult, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { warehouse } from './support/webhooks';

const W = '/inventory/int/v1/warehouses';
const L = '/int/v1/locations';
const D = '/fleet/int/v1/drivers';
const O = '/fleet/int/v1/orders';
const E = '/int/v1/webhook-endpoints';

/** `levels` nested objects around `inner`: `{"a":{"a":…inner…}}`. */
function nest(levels: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** The same as JSON text, built without recursion (JSON.stringify of 10,000 levels overflows the stack). */
const nestText = (levels: number, inner = '1') => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);

describe('hostile input: refused in the shared reading path with a 4xx that writes nothing', () => {
  let api: TestApi;
  let acme: TestCompany;
  let warehouseUuid: string;
  let driverUuid: string;
  let endpointUuid: string;

  const raw = (method: string, path: string, text?: string) =>
    http(api.url, method, path, {
      key: acme.key,
      raw: text,
      headers: text === undefined ? {} : { 'content-type': 'application/json' },
    });
  const call = (method: string, path: string, body?: unknown) =>
    http(api.url, method, path, { key: acme.key, body });

  /** The request answers `status` in the error format and leaves every table as it was. */
  async function refused(request: () => Promise<HttpResult>, status: number): Promise<HttpResult> {
    const before = await dbState(api);
    const response = await request();
    expect({ status: response.status, errors: response.body?.errors?.length }).toEqual({
      status,
      errors: expect.any(Number),
    });
    for (const error of response.body.errors) {
      expect(error).toMatchObject({
        status: String(status),
        code: expect.any(String),
        detail: expect.any(String),
      });
    }
    expect(await dbState(api)).toEqual(before);
    return response;
  }
  const field = (response: HttpResult) => pointerField(response.body.errors[0].source?.pointer);
  const parameter = (response: HttpResult) => response.body.errors[0].source?.parameter;

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api, 'Hostile');
    warehouseUuid = (await call('POST', W, warehouse('Main'))).body.warehouse.uuid;
    driverUuid = (await call('POST', D, { driver: { name: 'Ana' } })).body.driver.uuid;
    endpointUuid = (await call('POST', E, { webhook_endpoint: { url: 'http://127.0.0.1:9/hook' } })).body
      .webhook_endpoint.uuid;
  });
  afterAll(async () => {
    await api.close();
  });

  describe('NUL in any string', () => {
    it('in a body field: 422 pointing at the field', async () => {
      const response = await refused(() => call('POST', W, warehouse('a\u0000b')), 422);
      expect(field(response)).toBe('name');
      expect(response.body.errors[0].detail).toMatch(/NUL/);
    });

    it('inside nested JSON (an order’s meta): 422 pointing at the value', async () => {
      const response = await refused(
        () => call('POST', O, { order: { meta: { a: { b: 'x\u0000' } } } }),
        422,
      );
      expect(response.body.errors[0].source.pointer).toMatch(/\/meta\/a\/b$/);
    });

    it('in a field name: 422', async () => {
      expect(field(await refused(() => call('POST', L, { 'na\u0000me': 'x' }), 422))).toBe('na\u0000me');
    });

    it('in an api-key name and an endpoint description (management routes)', async () => {
      expect(field(await refused(() => call('POST', '/int/v1/api-keys', { name: '\u0000' }), 422))).toBe(
        'name',
      );
      expect(
        field(await refused(() => call('PATCH', `${E}/${endpointUuid}`, { description: 'd\u0000' }), 422)),
      ).toBe('description');
    });

    it('in a query filter or search: 400 naming the parameter', async () => {
      expect(parameter(await refused(() => call('GET', `${W}?name=%00`), 400))).toBe('name');
      expect(parameter(await refused(() => call('GET', `${W}?query=a%00b`), 400))).toBe('query');
      expect(parameter(await refused(() => call('GET', `${E}?description_like=%00`), 400))).toBe(
        'description_like',
      );
    });
  });

  describe('names of Object.prototype members as fields', () => {
    it.each([
      ['POST', L, { name: 'x', constructor: 1 }, 'constructor'],
      ['POST', W, warehouse('x', { toString: 'y' }), 'toString'],
      ['POST', W, warehouse('x', { sections: [{ name: 's', valueOf: 1 }] }), 'valueOf'],
    ])('%s %s with %j: 422 unknown field', async (method, path, body, name) => {
      const response = await refused(() => call(method, path, body), 422);
      expect(field(response)).toBe(name);
      expect(response.body.errors[0].detail).toMatch(new RegExp(`${name} is not a field`));
    });

    it('on a warehouse PATCH, an endpoint PUT/PATCH and the driver-location route', async () => {
      expect(
        field(await refused(() => call('PATCH', `${W}/${warehouseUuid}`, { constructor: 1 }), 422)),
      ).toBe('constructor');
      expect(field(await refused(() => call('PUT', `${E}/${endpointUuid}`, { toString: {} }), 422))).toBe(
        'toString',
      );
      expect(
        field(await refused(() => call('PATCH', `${E}/${endpointUuid}`, { hasOwnProperty: {} }), 422)),
      ).toBe('hasOwnProperty');
      const location = { latitude: 1, longitude: 2 };
      expect(
        field(
          await refused(
            () => call('POST', `${D}/${driverUuid}/location`, { ...location, constructor: 1 }),
            422,
          ),
        ),
      ).toBe('constructor');
      // The same route with a valid body: the refusal above is about the field, not the route.
      expect((await call('POST', `${D}/${driverUuid}/location`, location)).status).toBe(200);
    });

    it('__proto__ and constructor.prototype anywhere in a body: 422', async () => {
      const proto = await refused(() => raw('POST', L, '{"name":"x","__proto__":{"polluted":1}}'), 422);
      expect(field(proto)).toBe('__proto__');
      const ctor = await refused(
        () => raw('POST', O, '{"order":{"meta":{"constructor":{"prototype":{"x":1}}}}}'),
        422,
      );
      expect(ctor.body.errors[0].source.pointer).toMatch(/\/meta\/constructor$/);
    });
  });

  describe('deep nesting', () => {
    it('a body nested 2,400 levels deep: 400 before validation', async () => {
      const response = await refused(() => raw('POST', W, `{"warehouse":${nestText(2400)}}`), 400);
      expect(response.body.errors[0].detail).toMatch(/more than 32 levels deep/);
    });

    it('a 3,000-deep data on a test send and a 10,000-deep order meta: 400', async () => {
      await refused(() => raw('POST', `${E}/${endpointUuid}/test`, `{"data":${nestText(3000)}}`), 400);
      await refused(() => raw('POST', O, `{"order":{"meta":${nestText(10_000)}}}`), 400);
      // Brackets inside strings do not count.
      const stringy = await call('POST', O, { order: { notes: '['.repeat(5000), meta: nest(29) } });
      expect(stringy.status).toBe(201);
    });

    it('32 levels are accepted, 33 are not', async () => {
      // {"order": {"meta": …}}: two levels of envelope around the meta.
      expect((await call('POST', O, { order: { meta: nest(30) } })).status).toBe(201);
      await refused(() => call('POST', O, { order: { meta: nest(31) } }), 400);
    });
  });

  describe('lone surrogates', () => {
    it('in an email: 422, not a validator crash', async () => {
      const response = await refused(
        () => call('POST', D, { driver: { name: 'B', email: '\ud800@x.com' } }),
        422,
      );
      expect(field(response)).toBe('email');
      expect(response.body.errors[0].detail).toMatch(/well-formed Unicode/);
    });

    it('in any body string', async () => {
      expect(field(await refused(() => call('POST', L, { name: 'x\udc00' }), 422))).toBe('name');
    });
  });

  it('page beyond a sane maximum: 400, never a lossy offset', async () => {
    const response = await refused(() => call('GET', `${W}?page=9007199254740991`), 400);
    expect(parameter(response)).toBe('page');
  });
});
