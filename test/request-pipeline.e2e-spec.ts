import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASES, Phase, REQUEST_PIPELINE } from '@wharf/core';
import type { FastifyRequest } from 'fastify';
import { createCompany, TestCompany } from './support/accounts';
import { http } from './support/http';
import { ROOT } from './support/processes';
import { startApi, TestApi } from './support/test-app';
import { warehouse } from './support/webhooks';

const DOC = readFileSync(join(ROOT, 'docs', 'request.md'), 'utf8');
const HTTP_DIR = join(ROOT, 'libs', 'core', 'src', 'http');
const W = '/inventory/int/v1/warehouses';

type Order = Record<Phase, string[]>;

/** The stages of the table in docs/request.md, by phase, in the order of its rows. */
function documentedTable(): Order {
  const order: Order = { onRequest: [], preHandler: [], onSend: [], onResponse: [] };
  for (const [, phase, stage] of DOC.matchAll(
    /^\| (onRequest|preHandler|onSend|onResponse) +\| `([a-z-]+)` /gm,
  ))
    order[phase as Phase].push(stage);
  return order;
}

/** The stages of the diagram in docs/request.md: each phase's subgraph, its nodes left to right. */
function documentedDiagram(): Order {
  const order: Order = { onRequest: [], preHandler: [], onSend: [], onResponse: [] };
  for (const [, phase, chain] of DOC.matchAll(/^ +subgraph (\w+)\n +(.+)\n +end$/gm))
    order[phase as Phase] = [...chain.matchAll(/\[([a-z-]+)\]/g)].map((match) => match[1]);
  return order;
}

const inCode = (): Order =>
  Object.fromEntries(PHASES.map((phase) => [phase, [...REQUEST_PIPELINE[phase]]])) as Order;

/** `phase:stage` of every stage in the order the code runs them. */
const everyStage = PHASES.flatMap((phase) => REQUEST_PIPELINE[phase].map((stage) => `${phase}:${stage}`));

describe('the request pipeline: stages in the order docs/request.md gives', () => {
  it('docs/request.md lists the stages of the code, phase by phase, in its order (table and diagram)', () => {
    expect(documentedTable()).toEqual(inCode());
    expect(documentedDiagram()).toEqual(inCode());
    expect(PHASES).toEqual(['onRequest', 'preHandler', 'onSend', 'onResponse']);
  });

  it('names files of libs/core/src/http for every stage', () => {
    const files = [...DOC.matchAll(/^\| \w+ +\| `[a-z-]+` +\| ([^|]+)\|/gm)].flatMap(([, cell]) =>
      [...cell.matchAll(/`([\w.-]+\.ts)`/g)].map((match) => match[1]),
    );
    expect(files.length).toBeGreaterThanOrEqual(everyStage.length);
    expect(files.filter((file) => !existsSync(join(HTTP_DIR, file)))).toEqual([]);
  });

  describe('requests run their stages in that order', () => {
    let api: TestApi;
    let acme: TestCompany;
    const traces = new Map<string, string[]>();
    const finished = new Map<string, () => void>();
    const trace = (request: FastifyRequest, phase: Phase, stage: string) => {
      const id = String(request.id);
      traces.set(id, [...(traces.get(id) ?? []), `${phase}:${stage}`]);
      if (phase === 'onResponse' && stage === 'request-log') finished.get(id)?.();
    };

    /** Sends a request with its own id and gives its status and the stages it ran, once its last has run. */
    async function traced(
      id: string,
      method: string,
      path: string,
      options: Parameters<typeof http>[3] = {},
    ) {
      const last = new Promise<void>((resolve) => finished.set(id, resolve));
      const response = await http(api.url, method, path, {
        ...options,
        headers: { ...options.headers, 'x-request-id': id },
      });
      await last;
      return { status: response.status, stages: traces.get(id) };
    }

    /** This api traces nothing (no OTLP endpoint): its span stages are on no route's plan. */
    const UNTRACED = ['onRequest:span', 'onResponse:span-end'];
    /** The stages of the code's order but those a request of this kind leaves out. */
    const expected = (...without: string[]) =>
      everyStage.filter((stage) => !without.includes(stage) && !UNTRACED.includes(stage));
    const IDEMPOTENCY = [
      'preHandler:idempotency',
      'onSend:idempotency-answer',
      'onResponse:idempotency-release',
    ];

    beforeAll(async () => {
      api = await startApi({ trace });
      acme = await createCompany(api, 'Pipeline');
    });
    afterAll(() => api.close());

    it('a keyed POST runs every stage but the plain OPTIONS answer', async () => {
      const post = await traced('pipeline-post', 'POST', W, {
        key: acme.key,
        body: warehouse('Traced'),
        headers: { 'idempotency-key': 'pipeline-post' },
      });
      expect(post).toEqual({ status: 201, stages: expected('onRequest:options') });
    });

    it('a GET of an authenticated route: no idempotency stages', async () => {
      const get = await traced('pipeline-get', 'GET', `${W}?limit=1`, { key: acme.key });
      expect(get).toEqual({ status: 200, stages: expected('onRequest:options', ...IDEMPOTENCY) });
    });

    it('a public route of no resource: neither authentication, rate limit nor embedded reads', async () => {
      const health = await traced('pipeline-health', 'GET', '/health');
      expect(health).toEqual({
        status: 200,
        stages: expected(
          'onRequest:options',
          'preHandler:authenticate',
          'preHandler:rate-limit',
          ...IDEMPOTENCY,
          'onSend:embedded-reads',
        ),
      });
    });

    it('a refused request ends at the stage that refused it, and its answer still goes out through onSend', async () => {
      const refused = await traced('pipeline-401', 'GET', W);
      expect(refused).toEqual({
        status: 401,
        stages: expected('onRequest:options', 'preHandler:rate-limit', ...IDEMPOTENCY),
      });
    });

    it('a preflight is answered by cors, a plain OPTIONS by options: no stage before the handler after them', async () => {
      const before = ['preHandler:query', 'preHandler:authenticate', 'preHandler:rate-limit'];
      const preflight = await traced('pipeline-preflight', 'OPTIONS', W, {
        headers: { origin: 'http://localhost:4200', 'access-control-request-method': 'POST' },
      });
      expect(preflight).toEqual({
        status: 204,
        // Both OPTIONS are answered on a route of their own, which is no resource's.
        stages: expected('onRequest:json-only', ...before, ...IDEMPOTENCY, 'onSend:embedded-reads'),
      });
      const plain = await traced('pipeline-options', 'OPTIONS', W);
      expect(plain).toEqual({
        status: 204,
        stages: expected(
          'onRequest:cors',
          'onRequest:json-only',
          ...before,
          ...IDEMPOTENCY,
          'onSend:embedded-reads',
        ),
      });
    });
  });
});
