import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/config';
import { configureAccess } from './access.hook';
import { configureCors } from './cors';
import { configureEmbeddedReads } from './embedded-reads';
import { configureHttp, openRequest, refuseBadQuery, refuseNonJson, responded } from './fastify-setup';
import { answerOptions, configureHttpConventions, conventions } from './http-conventions';
import { instrumentHttp } from './http-metrics';
import { configureIdempotency } from './idempotency.hook';
import {
  PHASES,
  Phase,
  RouteFacts,
  StageFor,
  StageOf,
  everyRoute,
  routeFacts,
  runAfter,
  runGates,
  runSends,
} from './pipeline-stage';
import { configureReadYourWrites } from './read-your-writes';
import { logRequests } from './request-log';
import { endRequestSpan, openRequestSpan } from './request-span';
import { serveResourceRoutes } from './resource-routes';

/**
 * The stages of every request, phase by phase, in the order they run; the handler runs between preHandler
 * and onSend. docs/request.md draws the same list (request-pipeline.e2e-spec.ts holds them to each other).
 */
export const REQUEST_PIPELINE = {
  onRequest: ['span', 'request-context', 'options', 'cors', 'json-only'],
  preHandler: ['query', 'authenticate', 'rate-limit', 'idempotency'],
  onSend: ['embedded-reads', 'conventions', 'idempotency-answer', 'read-your-writes'],
  onResponse: ['idempotency-release', 'after-response', 'metrics', 'request-log', 'span-end'],
} as const satisfies Record<Phase, readonly string[]>;

/** Every stage of the pipeline, by phase and name. */
export type PipelineStages = {
  [P in Phase]: Record<(typeof REQUEST_PIPELINE)[P][number], StageFor<P>>;
};

/** Called as each stage starts (tests ask for it, to see the order a request takes). */
export type StageTrace = (request: FastifyRequest, phase: Phase, stage: string) => void;

/** The stages a route's requests run, by phase: chosen for the route at its first request. */
type Plan = { [P in Phase]: StageOf[P][] };

/** In each route's Fastify config: what the stages need to know of it, and its plan once chosen. */
const ROUTE = Symbol('wharf:request-route');
type Planned = { facts: RouteFacts; plan?: Plan };

async function pipelineStages(app: NestFastifyApplication, config: AppConfig): Promise<PipelineStages> {
  const access = configureAccess(app);
  const keyed = configureIdempotency(app, config.idempotencyTtlMs);
  return {
    onRequest: {
      span: openRequestSpan,
      'request-context': everyRoute(openRequest),
      options: answerOptions,
      cors: everyRoute(await configureCors(app, config)),
      'json-only': everyRoute(refuseNonJson),
    },
    preHandler: {
      query: everyRoute(refuseBadQuery),
      authenticate: access.authenticate,
      'rate-limit': access.rateLimit,
      idempotency: keyed.replayOrPin,
    },
    onSend: {
      'embedded-reads': configureEmbeddedReads(app),
      conventions: everyRoute(conventions),
      'idempotency-answer': keyed.answered,
      'read-your-writes': configureReadYourWrites(app),
    },
    onResponse: {
      'idempotency-release': keyed.abandoned,
      'after-response': everyRoute(responded),
      metrics: instrumentHttp(app, config),
      'request-log': everyRoute(logRequests(app, config)),
      'span-end': endRequestSpan,
    },
  };
}

/**
 * Everything the api does with a request around its handler, as the stages of REQUEST_PIPELINE: one
 * Fastify hook per phase runs that phase's stages for the route matched, and no other part of the kernel
 * adds a request hook. Also sets up what the stages rely on: the route table (405, OPTIONS), the JSON body
 * parser, the generated routes' handlers, GET /metrics. Call before any route is registered and before
 * the app is initialised.
 */
export async function serveRequests(
  app: NestFastifyApplication,
  config: AppConfig,
  trace?: StageTrace,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  // First: the route table (of 405 and OPTIONS) and the plans must see every route.
  configureHttpConventions(app);
  fastify.addHook('onRoute', (route) => {
    const planned: Planned = { facts: routeFacts(route) };
    route.config = { ...(route.config as object), [ROUTE]: planned };
  });
  configureHttp(app);
  const stages = await pipelineStages(app, config);
  serveResourceRoutes(app);
  addPhaseHooks(fastify, (route) => {
    const plan = {} as Record<Phase, unknown[]>;
    for (const phase of PHASES) plan[phase] = chosen(stages, phase, route, trace);
    return plan as Plan;
  });
}

/** The stages of `phase` that have something to do on `route`, in the pipeline's order. */
function chosen<P extends Phase>(stages: PipelineStages, phase: P, route: RouteFacts, trace?: StageTrace) {
  const named = stages[phase] as Record<string, StageFor<P>>;
  const runs: StageOf[P][] = [];
  for (const name of REQUEST_PIPELINE[phase]) {
    const run = named[name](route);
    if (!run) continue;
    runs.push(trace ? traced(run, phase, name, trace) : run);
  }
  return runs;
}

function traced<F extends StageOf[Phase]>(run: F, phase: Phase, name: string, trace: StageTrace): F {
  return ((request: FastifyRequest, ...rest: unknown[]) => {
    trace(request, phase, name);
    return (run as (...args: unknown[]) => unknown)(request, ...rest);
  }) as F;
}

type PlannedRequest = FastifyRequest & { wharfPlan?: Plan | null };

function addPhaseHooks(fastify: FastifyInstance, planFor: (route: RouteFacts) => Plan): void {
  const noRoute = planFor(routeFacts());
  fastify.decorateRequest('wharfPlan', null);
  // A request the not-found handler takes over (reply.callNotFound) runs the preHandler stages again, as
  // a request of no route: none of its own route's (no second authentication).
  const planOf = (request: PlannedRequest): Plan =>
    request.is404 ? noRoute : (request.wharfPlan ?? noRoute);
  fastify.addHook('onRequest', (request: PlannedRequest, reply: FastifyReply, done) => {
    const config = request.routeOptions.config as unknown as Record<symbol, Planned | undefined> | undefined;
    const planned = config?.[ROUTE];
    const plan = (request.wharfPlan = planned ? (planned.plan ??= planFor(planned.facts)) : noRoute);
    runGates(plan.onRequest, 0, request, reply, done);
  });
  fastify.addHook('preHandler', (request: PlannedRequest, reply: FastifyReply, done) =>
    runGates(planOf(request).preHandler, 0, request, reply, done),
  );
  fastify.addHook('onSend', (request: PlannedRequest, reply: FastifyReply, payload, done) =>
    runSends(planOf(request).onSend, 0, request, reply, payload, done),
  );
  fastify.addHook('onResponse', (request: PlannedRequest, reply: FastifyReply, done) => {
    runAfter(planOf(request).onResponse, 0, request, reply);
    done();
  });
}
