import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Counter, Histogram } from 'prom-client';
import type { AppConfig } from '../config/config';
import { errorObject } from '../common/api-error';
import { Metrics, metricsAuthorized } from '../metrics/metrics';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StageFor } from './pipeline-stage';

/**
 * Stage `metrics`: counts and times every HTTP request by method, route template (never the raw URL, so
 * label values stay bounded) and status. Serves GET /metrics (behind METRICS_TOKEN when set).
 */
export function instrumentHttp(app: NestFastifyApplication, config: AppConfig): StageFor<'onResponse'> {
  const metrics = app.get(Metrics);
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'wharf_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'wharf_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route template and status',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  });
  const fastify = app.getHttpAdapter().getInstance();
  // The series of each (method, route, status), looked up by one string: prom-client otherwise hashes a
  // labels object on every inc and observe, on every request.
  const series = new Map<
    string,
    { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof duration.labels> }
  >();
  const measure = (request: FastifyRequest, reply: FastifyReply, url: string) => {
    // A request handed to the not-found handler (reply.callNotFound) is counted as unmatched.
    const route = request.is404 ? 'unmatched' : url;
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let one = series.get(key);
    if (!one) {
      const labels = { method: request.method, route, status: String(reply.statusCode) };
      series.set(key, (one = { count: requests.labels(labels), time: duration.labels(labels) }));
    }
    one.count.inc();
    one.time.observe(reply.elapsedTime / 1000);
  };
  fastify.get('/metrics', async (request, reply) => {
    if (!metricsAuthorized(request.headers.authorization, config.metricsToken)) {
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer')
        .type('application/json; charset=utf-8')
        .send({ errors: [errorObject(401, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.')] });
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  return ({ url = 'unmatched' }) =>
    (request, reply) =>
      measure(request, reply, url);
}
