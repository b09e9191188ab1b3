import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** The Fastify hooks the request pipeline runs in, in the order a request meets them. */
export const PHASES = ['onRequest', 'preHandler', 'onSend', 'onResponse'] as const;
export type Phase = (typeof PHASES)[number];

/** An answer a stage gives instead of going on: the runner sends it and the phase's later stages do not run. */
export interface ReplyWith {
  status: number;
  headers?: Record<string, string>;
  /** JSON text, or nothing (a 204). */
  body?: string;
}

/** The stage sent the answer itself (a library's handler did, or a stored answer went out). */
export const SENT = Symbol('wharf:sent');

/** The rest of the phase (and so of the request) runs inside `around`, e.g. in the request's async context. */
export interface Around {
  around(rest: () => void): void;
}

/**
 * What a stage of onRequest or preHandler decides: go on (undefined), answer with a reply, the reply was
 * sent, refuse with an error (the exception filter answers it, as any handler's error), or run the rest
 * of the phase inside a context.
 */
export type Outcome = undefined | ReplyWith | typeof SENT | Error | Around;

/** A stage before the handler: it may end the request there. */
export type GateStage = (request: FastifyRequest, reply: FastifyReply) => Outcome | Promise<Outcome>;
/** A stage on the answer's way out: it returns the body to send (the one it was given, or another). */
export type SendStage = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown;
/** A stage once the answer is sent: bookkeeping only, it cannot change the answer. */
export type AfterStage = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>;

export interface StageOf {
  onRequest: GateStage;
  preHandler: GateStage;
  onSend: SendStage;
  onResponse: AfterStage;
}

/** What a stage may know of the route a request matched, decided once, when the route is registered. */
export interface RouteFacts {
  /** The route's path pattern; undefined for a request no route matched. */
  url?: string;
  methods: string[];
  /** The route's Fastify config (where Nest's decorators put what a route needs: see addRouteConfig). */
  config: Record<string | symbol, unknown>;
}

export function routeFacts(route?: Pick<RouteOptions, 'url' | 'method' | 'config'>): RouteFacts {
  return {
    url: route?.url,
    methods: route ? ([] as string[]).concat(route.method) : [],
    config: (route?.config ?? {}) as Record<string | symbol, unknown>,
  };
}

/**
 * A stage as the pipeline lists it: given a route, the function to run for its requests, or undefined
 * when the stage has nothing to do on that route (an authentication a @Public() route never needs).
 */
export type StageFor<P extends Phase> = (route: RouteFacts) => StageOf[P] | undefined;

/** A stage that runs the same way on every route. */
export const everyRoute =
  <P extends Phase>(run: StageOf[P]): StageFor<P> =>
  () =>
    run;

export const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as Promise<unknown> | undefined)?.then === 'function';

type Done = (error?: Error) => void;

/** Runs gate stages in order: synchronously as long as they are synchronous, awaiting one that is not. */
export function runGates(
  stages: GateStage[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: Done,
): void {
  for (let i = from; i < stages.length; i++) {
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = stages[i](request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (outcome === undefined) continue;
    if (isPromise(outcome)) {
      outcome.then(
        (settled) => settle(settled, stages, i, request, reply, done),
        (error: Error) => done(error),
      );
      return;
    }
    settle(outcome, stages, i, request, reply, done);
    return;
  }
  done();
}

function settle(
  outcome: Outcome,
  stages: GateStage[],
  at: number,
  request: FastifyRequest,
  reply: FastifyReply,
  done: Done,
): void {
  if (outcome === undefined) runGates(stages, at + 1, request, reply, done);
  else if (outcome instanceof Error) done(outcome);
  else if (outcome === SENT) return;
  else if ('around' in outcome) outcome.around(() => runGates(stages, at + 1, request, reply, done));
  else
    void reply
      .code(outcome.status)
      .headers(outcome.headers ?? {})
      .send(outcome.body);
}

/** Runs send stages in order, each given the body the one before returned. */
export function runSends(
  stages: SendStage[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  for (let i = from; i < stages.length; i++) {
    let next: unknown;
    try {
      next = stages[i](request, reply, payload);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (isPromise(next)) {
      next.then(
        (settled) => runSends(stages, i + 1, request, reply, settled, done),
        (error: Error) => done(error),
      );
      return;
    }
    payload = next;
  }
  done(null, payload);
}

/** Runs after stages in order; one that fails is logged and the others still run. */
export function runAfter(
  stages: AfterStage[],
  from: number,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  for (let i = from; i < stages.length; i++) {
    try {
      const result = stages[i](request, reply);
      if (isPromise(result)) {
        result.then(
          () => runAfter(stages, i + 1, request, reply),
          (error: Error) => {
            request.log.error({ err: error }, 'a request stage failed after the answer was sent');
            runAfter(stages, i + 1, request, reply);
          },
        );
        return;
      }
    } catch (error) {
      request.log.error({ err: error }, 'a request stage failed after the answer was sent');
    }
  }
}
