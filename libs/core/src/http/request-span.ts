import type { FastifyReply, FastifyRequest } from 'fastify';
import { tracing } from '../tracing/tracing';
import type { TraceSpan } from '../tracing/tracing';
import type { StageFor } from './pipeline-stage';

/** Where the `span` stage leaves a request's span for `span-end`. */
const SPAN = Symbol('wharf:request-span');
type Spanned = FastifyRequest & { [SPAN]?: TraceSpan };

/**
 * Stage `span`: with tracing on, the request's OpenTelemetry server span (the child of a `traceparent` the
 * caller sent), and the rest of the request runs inside it, so what it writes is traced in its trace. With
 * tracing off the stage is on no route's plan.
 */
export const openRequestSpan: StageFor<'onRequest'> = (route) => {
  const traces = tracing();
  if (!traces) return undefined;
  return (request: Spanned) => {
    const served = traces.serve(request.method, route.url, request.headers);
    request[SPAN] = served.span;
    return { around: served.run };
  };
};

/** Stage `span-end`: the request's span ends with its answer's status (a 5xx marks it failed). */
export const endRequestSpan: StageFor<'onResponse'> = () => {
  if (!tracing()) return undefined;
  return (request: Spanned, reply: FastifyReply) => {
    const span = request[SPAN];
    if (!span) return;
    span.set({ 'http.response.status_code': reply.statusCode });
    if (reply.statusCode >= 500) span.failed(`answered ${reply.statusCode}`);
    span.end();
  };
};
