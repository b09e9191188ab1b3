import { request } from 'node:http';
import { TestCompany, createCompany } from './support/accounts';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { Receiver } from './support/receiver';
import { createEndpoint } from './support/webhooks';

const JSON_TYPE = 'application/json';

/** One request as a client writes it, headers exactly as given; the body (if any) in one write. */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('request bodies: empty ones where none is needed', () => {
  let api: TestApi;
  let acme: TestCompany;
  const L = '/int/v1/locations';
  const E = '/int/v1/webhook-endpoints';

  beforeAll(async () => {
    api = await startApi();
    acme = await createCompany(api);
  });
  afterAll(() => api.close());

  const auth = () => ({ authorization: `Bearer ${acme.key}` });
  const endpointAt = async (url: string) => (await createEndpoint(api, acme, url)).endpoint.uuid as string;
  const location = async () =>
    (await http(api.url, 'POST', L, { key: acme.key, body: { name: 'Gate' } })).body.location.uuid as string;

  describe('an empty body with content-type JSON', () => {
    // content-length: 0, a chunked body of no chunks, and whitespace: each is no body.
    const EMPTY: [string, Record<string, string>, string | undefined][] = [
      ['content-length: 0', { 'content-type': JSON_TYPE, 'content-length': '0' }, undefined],
      ['chunked, no chunks', { 'content-type': JSON_TYPE, 'transfer-encoding': 'chunked' }, undefined],
      ['blank', { 'content-type': 'application/json; charset=utf-8', 'content-length': '3' }, ' \r\n'],
    ];

    it.each(EMPTY)('is no body on a DELETE (%s)', async (_, headers, body) => {
      const uuid = await location();
      const removed = await raw(api.url, 'DELETE', `${L}/${uuid}`, { ...auth(), ...headers }, body);
      expect(removed).toMatchObject({ status: 200, body: { location: { uuid } } });
      expect((await http(api.url, 'GET', `${L}/${uuid}`, { key: acme.key })).status).toBe(404);
    });

    it.each(EMPTY)(
      'is no body on an action that takes none: /disable, /enable (%s)',
      async (_, headers, body) => {
        const uuid = await endpointAt('https://hooks.example.com/x');
        const act = (action: string) =>
          raw(api.url, 'POST', `${E}/${uuid}/${action}`, { ...auth(), ...headers }, body);
        expect(await act('disable')).toMatchObject({
          status: 200,
          body: { webhook_endpoint: { status: 'disabled' } },
        });
        expect(await act('enable')).toMatchObject({
          status: 200,
          body: { webhook_endpoint: { status: 'enabled' } },
        });
      },
    );

    it.each(EMPTY)(
      'is no body where the body is optional: /test sends its default event (%s)',
      async (_, headers, body) => {
        const receiver = await new Receiver().start();
        try {
          const uuid = await endpointAt(`${receiver.url}/probe`);
          const tested = await raw(api.url, 'POST', `${E}/${uuid}/test`, { ...auth(), ...headers }, body);
          expect(tested).toMatchObject({
            status: 200,
            body: { webhook_request_log: { test: true, response_status: 200 } },
          });
        } finally {
          await receiver.stop();
        }
      },
    );

    it.each(EMPTY)('is refused, changing nothing, where a body is needed (%s)', async (_, headers, body) => {
      const before = (await http(api.url, 'GET', L, { key: acme.key })).body.meta.total;
      for (const [method, path] of [
        ['POST', L],
        ['PUT', `${L}/${await location()}`],
        ['POST', E],
      ]) {
        const refused = await raw(api.url, method, path, { ...auth(), ...headers }, body);
        expect([method, refused]).toEqual([
          method,
          {
            status: 400,
            body: {
              errors: [
                expect.objectContaining({
                  detail: expect.stringMatching(/^The body is empty but the content-type says JSON/),
                }),
              ],
            },
          },
        ]);
      }
      expect((await http(api.url, 'GET', L, { key: acme.key })).body.meta.total).toBe(before + 1);
    });
  });
});
