import SwaggerParser from '@apidevtools/swagger-parser';
import { ResourceRegistry, resourceOperationId, resourceSchemas } from '@wharf/core';
import { http } from './support/http';
import { TestApi, startApi } from './support/test-app';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `/int/v1/webhook-endpoints/:uuid` → `/int/v1/webhook-endpoints/{uuid}` */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('OpenAPI document of every route', () => {
  let api: TestApi;
  let document: any;
  /** Every route the api registered with Fastify, as `METHOD /path`. */
  const registered = new Set<string>();

  beforeAll(async () => {
    api = await startApi({
      beforeListen: (app) =>
        app
          .getHttpAdapter()
          .getInstance()
          .addHook('onRoute', (route) => {
            for (const method of ([] as string[]).concat(route.method)) {
              if (METHODS.includes(method)) registered.add(`${method} ${openApiPath(route.url)}`);
            }
          }),
    });
    const res = await http(api.url, 'GET', '/docs-json');
    expect(res.status).toBe(200);
    document = res.body;
  });
  afterAll(() => api.close());

  it('is served without an API key and is a valid OpenAPI 3 document', async () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info).toMatchObject({ title: 'Wharf API', version: 'v1' });
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined();
  });

  it('documents every route the api registered, and no route it did not', () => {
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, unknown>>(document.paths)) {
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    // Pages and their static files (this document's own UI, the console) are not API routes.
    // The camelCase plurals (`/warehouseSections`, for stock Ember adapters) are served but not advertised.
    const isAlias = (route: string) => /\/[a-z]+[A-Z][A-Za-z]*(\/|$)/.test(route);
    const served = [...registered].filter(
      (route) => !/^\S+ \/(docs|console)(-json)?(\/|$)/.test(route) && !isAlias(route),
    );
    expect(registered).toContain('GET /inventory/int/v1/warehouseSections/{uuid}');
    expect([...documented].filter(isAlias)).toEqual([]);
    expect(served.length).toBeGreaterThan(40);
    expect(served.filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
    // The management API and the generated routes of every extension are among them.
    expect(served).toEqual(
      expect.arrayContaining([
        'POST /int/v1/webhook-endpoints/{uuid}/rotate-secret',
        'POST /int/v1/webhook-request-logs/{uuid}/resend',
        'GET /int/v1/webhook-events',
        'GET /int/v1/webhook-sender-addresses',
        'PATCH /inventory/int/v1/warehouse-sections/{uuid}',
        'GET /health',
      ]),
    );
  });

  it('describes each generated resource route with its body, record, list parameters and errors', () => {
    const operations = new Map<string, any>();
    for (const item of Object.values<Record<string, any>>(document.paths)) {
      for (const operation of Object.values(item)) operations.set(operation.operationId, operation);
    }
    const schemas = document.components.schemas;
    const defs = api.app.get(ResourceRegistry).all();
    expect(defs.length).toBeGreaterThan(5);
    for (const def of defs) {
      const names = resourceSchemas(def.name);
      const record = schemas[names.record];
      expect({ resource: def.name, properties: Object.keys(record.properties).sort() }).toEqual({
        resource: def.name,
        properties: ['id', ...def.columns.keys(), ...def.embeds.map((e) => e.property)].sort(),
      });
      for (const hidden of def.hidden) expect(record.properties[hidden]).toBeUndefined();

      const list = operations.get(resourceOperationId('list', def.name));
      expect(list).toBeDefined();
      const parameters = list.parameters.map((p: { name: string }) => p.name);
      expect(parameters).toEqual(expect.arrayContaining(['limit', 'page', 'offset', 'sort', 'filters']));
      for (const column of def.columns.values()) {
        if (column.kind !== 'json')
          expect({ resource: def.name, has: parameters.includes(column.name) }).toEqual({
            resource: def.name,
            has: true,
          });
      }
      if (def.searchable.length) expect(parameters).toContain('query');
      expect(list.responses['200'].content['application/json'].schema.$ref).toBe(
        `#/components/schemas/${names.list}`,
      );
      expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['400', '401', '429']));

      const find = operations.get(resourceOperationId('find', def.name));
      expect(Object.keys(find.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    }

    const create = operations.get('createWarehouse');
    expect(create.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/WarehouseCreateBody',
    );
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(['201', '401', '413', '415', '422']),
    );
    const fields = schemas.WarehouseCreateBody.anyOf[1];
    expect(fields.required).toEqual(expect.arrayContaining(['name', 'address', 'city', 'capacity']));
    expect(fields.properties.capacity).toMatchObject({ type: 'integer', minimum: 0 });
    expect(fields.properties.sections.type).toBe('array');
    expect(schemas.WarehouseUpdateBody.anyOf[1].required).toBeUndefined();
    expect(schemas.Errors.properties.errors.items.$ref).toBe('#/components/schemas/ErrorObject');

    // A read-only resource documents only its routes; the create of endpoints documents the secret.
    expect(operations.get(resourceOperationId('create', 'webhook-request-log'))).toBeUndefined();
    const endpointCreate = operations.get('createWebhookEndpoint');
    expect(JSON.stringify(endpointCreate.responses['201'])).toContain('secret');
    expect(schemas.WebhookEndpoint.properties.secret).toBeUndefined();
    expect(operations.get('recoverWebhookEndpoint').requestBody).toBeDefined();
  });

  it('is OpenAPI 3.1 with servers, a described tag for every tag used, and what each operation needs', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const declared = new Map<string, string>(document.tags.map((t: any) => [t.name, t.description]));
    for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect({ where, summary: !!operation.summary, description: !!operation.description }).toEqual({
          where,
          summary: true,
          description: true,
        });
        expect({
          where,
          tagged: operation.tags?.length > 0 && operation.tags.every((t: string) => declared.get(t)),
        }).toEqual({
          where,
          tagged: true,
        });
        const statuses = Object.keys(operation.responses);
        expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['400', '503']) });
        if (['post', 'put', 'patch'].includes(method))
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['413', '415']) });
        if (operation.requestBody)
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['422']) });
        // A stream is never complete, so it has no ETag to revalidate.
        if (method === 'get' && !operation.responses['200'].content?.['text/event-stream'])
          expect({ where, statuses }).toEqual({ where, statuses: expect.arrayContaining(['304']) });
      }
    }
    // Nullable in 3.1 form only; an embedded driver is the driver without its own embeds.
    expect(JSON.stringify(document)).not.toContain('"nullable"');
    const schemas = document.components.schemas;
    expect(schemas.Order.properties.driver).toEqual({
      anyOf: [{ $ref: '#/components/schemas/DriverEmbedded' }, { type: 'null' }],
    });
    expect(schemas.DriverEmbedded.properties.vehicle).toBeUndefined();
    expect(schemas.Driver.properties.vehicle).toBeDefined();
    expect(schemas.Order.properties.status).toEqual({ type: 'string', enum: expect.any(Array) });
    const orderFields = schemas.OrderCreateBody.anyOf[1];
    expect(orderFields.required ?? []).not.toContain('meta');
    expect(orderFields.properties.meta).toEqual({ type: 'object', additionalProperties: true });
    expect(orderFields.properties.status.type).toEqual(['string', 'null']);
    expect(orderFields.properties.status.enum).toContain(null);
    // Both fleet actions document their body and their response.
    for (const path of ['/fleet/int/v1/drivers/{uuid}/location', '/fleet/int/v1/orders/{uuid}/status']) {
      const action = document.paths[path].post;
      expect(action.requestBody.content['application/json'].schema.required.length).toBeGreaterThan(0);
      expect(action.responses['200'].content['application/json'].schema.$ref).toMatch(/Response$/);
      expect(Object.keys(action.responses)).toEqual(expect.arrayContaining(['404', '422']));
    }
    // Headers: x-request-id everywhere, rate limits on authenticated answers, Location on 201, ETag on GET.
    const create = document.paths['/inventory/int/v1/warehouses'].post.responses['201'].headers;
    expect(Object.keys(create)).toEqual(
      expect.arrayContaining(['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'location']),
    );
    expect(
      Object.keys(document.paths['/inventory/int/v1/warehouses/{uuid}'].get.responses['200'].headers),
    ).toContain('etag');
    expect(Object.keys(document.components.responses.TooManyRequests.headers)).toContain('retry-after');
    expect(Object.keys(document.components.responses.ServiceUnavailable.headers)).toContain('retry-after');
  });

  it('requires the bearer API key (or a portal session) everywhere except on public routes', () => {
    expect(document.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Keys are opaque, not JWTs.
    expect(document.components.securitySchemes.api_key.bearerFormat).toBeUndefined();
    expect(document.components.securitySchemes.portal_session).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'wharf_portal',
    });
    expect(document.security).toEqual([{ api_key: [] }, { portal_session: [] }]);
    // A portal session's refusals: every write, and the routes of API keys only.
    expect(document.paths['/int/v1/webhook-endpoints'].post.responses['403']).toBeDefined();
    expect(document.paths['/int/v1/api-keys'].get.responses['403']).toBeDefined();
    expect(document.paths['/int/v1/webhook-endpoints'].get.responses['403']).toBeUndefined();
    expect(JSON.stringify(document)).not.toContain('x-wharf-keys-only');
    expect(document.paths['/health'].get.security).toEqual([]);
    expect(document.paths['/int/v1/webhook-endpoints'].get.security).toBeUndefined();
    expect(JSON.stringify(document)).not.toContain('x-wharf-public');
  });

  it('serves a browsable page at /docs', async () => {
    const page = await http(api.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    for (const asset of ['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/swagger-ui-init.js']) {
      const res = await fetch(`${api.url}${asset}`);
      // Read to the end: an unread 1 MB stream holds its connection open and stalls app.close() for ~40 s.
      await res.arrayBuffer();
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
    }
  });
});
