import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { TestCompany, createCompany } from './support/accounts';
import { eventually, http } from './support/http';
import { TestApi, startApi } from './support/test-app';
import { Receiver } from './support/receiver';
import { createEndpoint } from './support/webhooks';

const JSON_TYPE = 'application/json';
const TOO_LARGE = 'The body is larger than the 1 MiB limit.';
const MiB = 1024 * 1024;

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

/**
 * Node's fetch posting `sizeMiB` of JSON `tries` times from a process of its own (in this process, client
 * and server share an event loop and the upload never races the answer): each answer's status and detail,
 * or how the request failed.
 */
async function fetchOversize(url: string, key: string, sizeMiB: number, tries: number): Promise<string[]> {
  const script = `
    const [url, key, size, tries] = process.argv.slice(1);
    (async () => {
      const body = JSON.stringify({ name: 'x'.repeat(Number(size) * ${MiB}) });
      const out = [];
      for (let i = 0; i < Number(tries); i++) {
        try {
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + key }, body });
          out.push(res.status + ' ' + JSON.parse(await res.text()).errors[0].detail);
        } catch (error) {
          out.push('failed: ' + (error.cause?.code ?? error.message));
        }
      }
      console.log(JSON.stringify(out));
    })();`;
  const args = ['-e', script, url, key, String(sizeMiB), String(tries)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1024 * 1024 });
  return JSON.parse(stdout) as string[];
}

describe('request bodies: empty ones where none is needed, oversize ones answered', () => {
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

  describe('a body over the limit', () => {
    it('is answered 413 saying the limit, and Node fetch gets that answer every time (2 and 8 MiB)', async () => {
      for (const size of [2, 8]) {
        const answers = await fetchOversize(`${api.url}${L}`, acme.key, size, 20);
        expect([size, answers]).toEqual([size, Array(20).fill(`413 ${TOO_LARGE}`)]);
      }
    });

    it('announced by content-length: answered, then read to its end on a connection kept open', async () => {
      const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      // The answers so far are whole once the last one's JSON body has arrived.
      const answer = (count: number) =>
        eventually(async () => received.split('HTTP/1.1 ').length > count && received.endsWith('}'));
      const write = (data: string | Buffer) =>
        new Promise<void>((resolve, reject) =>
          socket.write(data, (error) => (error ? reject(error) : resolve())),
        );
      await write(
        `POST ${L} HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nAuthorization: Bearer ${acme.key}\r\n` +
          `Content-Length: ${8 * MiB}\r\n\r\n`,
      );
      await answer(1);
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(received).not.toMatch(/connection: close/i);
      expect(received).toContain(TOO_LARGE);
      // The rest of the body still arrives, and the same connection serves the next request.
      for (let sent = 0; sent < 8 * MiB; sent += 256 * 1024) await write(Buffer.alloc(256 * 1024, 0x20));
      await write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      await answer(2);
      expect(received.split('HTTP/1.1 ')[2]).toMatch(/^200 /);
      socket.destroy();
    });

    it('a client that stops sending a refused body does not hold the api when it shuts down', async () => {
      const own = await startApi();
      const company = await createCompany(own);
      const socket = connect(Number(new URL(own.url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write(
        `POST ${L} HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nAuthorization: Bearer ${company.key}\r\n` +
          `Content-Length: ${8 * MiB}\r\n\r\n` +
          'x'.repeat(1024),
      );
      await eventually(async () => received.includes(TOO_LARGE));
      // The rest of the body never comes: the shutdown ends the connection instead of waiting for it.
      await own.close();
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
    });

    it('announced over 16 times the limit: answered at once, and the connection closed', async () => {
      const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
      const closed = new Promise((resolve) => socket.on('close', resolve));
      socket.write(
        `POST ${L} HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nAuthorization: Bearer ${acme.key}\r\n` +
          `Content-Length: ${16 * MiB + 1}\r\n\r\n`,
      );
      await closed;
      expect(received).toMatch(/^HTTP\/1\.1 413 /);
      expect(received).toMatch(/connection: close/i);
      expect(received).toContain(TOO_LARGE);
    });

    it('sent chunked: read to its end, then answered 413 saying the limit', async () => {
      const answered = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${api.url}${L}`, {
          method: 'POST',
          headers: { ...auth(), 'content-type': JSON_TYPE, 'transfer-encoding': 'chunked' },
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let left = 48; // 3 MiB
        const more = () => {
          while (left > 0) if (!req.write(chunk) || --left === 0) break;
          if (left === 0) req.end();
          else req.once('drain', () => (--left, more()));
        };
        more();
      });
      expect(answered.status).toBe(413);
      expect(JSON.parse(answered.text).errors[0]).toMatchObject({
        detail: TOO_LARGE,
        meta: { limit_bytes: MiB },
      });
    });
  });
});
