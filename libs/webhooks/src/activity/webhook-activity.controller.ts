import { Controller, Get, Inject, Query, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, ApiError, ApiErrors, AppConfig, RequestContext, Permission, orNull } from '@wharf/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { RequestLogStore } from '../store/request-logs.store';
import { COMPANY_ENDPOINT } from './activity.sql';
import { ActivityHub } from './activity-hub';
import { StreamClient } from './stream-client';
import { openEventStream, streamPrincipal } from './event-stream';
import { EventVisibility } from '../events/event-visibility';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 24 * 3600 * 1000;
const COUNTS = {
  successful: { type: 'integer' },
  failed: { type: 'integer' },
  retrying: { type: 'integer' },
};
const ACTIVITY = {
  type: 'object',
  properties: {
    interval: { type: 'string', enum: ['hour', 'minute'] },
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    webhook_endpoint_uuid: orNull({ type: 'string', format: 'uuid' }),
    buckets: {
      type: 'array',
      description: 'Only the buckets with attempts, oldest first.',
      items: {
        type: 'object',
        properties: { at: { type: 'string', format: 'date-time' }, ...COUNTS },
        required: ['at', 'successful', 'failed', 'retrying'],
      },
    },
    totals: { type: 'object', properties: COUNTS, required: ['successful', 'failed', 'retrying'] },
    max_attempts: {
      type: 'integer',
      description:
        'Attempts per delivery (the retry schedule plus one): a failed attempt below it is retrying.',
    },
  },
  required: ['interval', 'from', 'to', 'webhook_endpoint_uuid', 'buckets', 'totals', 'max_attempts'],
};

const INTERVALS = ['hour', 'minute'] as const;

/** The activity route's parameters, checked: 400 for one it does not take or a bad value. */
function activityParameters(query: Record<string, unknown>) {
  const unknown = Object.keys(query).find((name) => name !== 'interval' && name !== 'webhook_endpoint_uuid');
  if (unknown !== undefined)
    throw ApiError.badParameter(
      unknown,
      `${unknown} is not a parameter of this route (interval, webhook_endpoint_uuid).`,
    );
  const interval = query.interval ?? 'hour';
  if (!INTERVALS.includes(interval as never))
    throw ApiError.badParameter('interval', 'interval must be hour or minute.');
  const endpoint = query.webhook_endpoint_uuid;
  if (endpoint !== undefined && (typeof endpoint !== 'string' || !UUID.test(endpoint)))
    throw ApiError.badParameter('webhook_endpoint_uuid', 'webhook_endpoint_uuid must be a uuid.');
  return { interval: interval as (typeof INTERVALS)[number], endpoint: endpoint ?? null };
}

/** Delivery at a glance: attempts per hour or minute of the last day, and the log live over SSE. */
@ApiTags('webhook-activity')
@Permission('webhooks.logs:read')
@Controller('webhook-activity')
export class WebhookActivityController {
  constructor(
    private readonly hub: ActivityHub,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly logs: RequestLogStore,
    // The api's auth services, looked up when a stream opens: the worker loads this module without them.
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly visibility: EventVisibility,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getWebhookActivity',
    summary: 'Attempts per hour or minute over the last 24 hours',
    description:
      'Successful, retrying (failed, with an attempt after it in the retry schedule) and failed (the last ' +
      'attempt) delivery attempts per UTC hour or minute, of the company or of one endpoint; test sends ' +
      'are not counted, nor the attempts of events the caller may not read. One indexed read of the ' +
      'request log.',
  })
  @ApiQuery({ name: 'interval', required: false, schema: { type: 'string', enum: ['hour', 'minute'] } })
  @ApiQuery({ name: 'webhook_endpoint_uuid', required: false, schema: { type: 'string', format: 'uuid' } })
  // Another company's endpoint (or none) by uuid.
  @ApiErrors(404)
  @ApiOkResponse({
    schema: { type: 'object', properties: { webhook_activity: ACTIVITY }, required: ['webhook_activity'] },
  })
  async activity(@Query() query: Record<string, unknown>) {
    const { interval, endpoint } = activityParameters(query);
    const company = RequestContext.companyUuid();
    if (endpoint && !(await this.dataSource.query(COMPANY_ENDPOINT, [endpoint, company])).length)
      throw ApiError.notFound(`No webhook endpoint with uuid "${endpoint}".`);
    const step = interval === 'hour' ? 3600_000 : 60_000;
    const to = new Date();
    const from = new Date(Math.floor((to.getTime() - DAY_MS) / step) * step);
    const retries = this.config.webhooks.retrySchedule.length;
    const events = this.visibility.readableEvents() ?? null;
    const rows = await this.logs.activity({ company, from, to, endpoint, retries, interval, events });
    const totals = { successful: 0, failed: 0, retrying: 0 };
    for (const row of rows) {
      totals.successful += row.successful;
      totals.failed += row.failed;
      totals.retrying += row.retrying;
    }
    return {
      webhook_activity: {
        interval,
        from: from.toISOString(),
        to: to.toISOString(),
        webhook_endpoint_uuid: endpoint,
        buckets: rows.map((row) => ({ ...row, at: new Date(row.at).toISOString() })),
        totals,
        max_attempts: retries + 1,
      },
    };
  }

  @Get('stream')
  @ApiOperation({
    operationId: 'streamWebhookActivity',
    summary: 'The request log and endpoint changes, live (Server-Sent Events)',
    description:
      'A `request_log` event per new request-log row of the company (its id is the row’s position: send it ' +
      'back as `Last-Event-ID` on reconnecting to get what was missed, from the last day), an `endpoint` ' +
      'event when an endpoint is disabled, enabled, throttled or verified, and a comment every 15 s.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'An event stream that stays open.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  async stream(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const extra = Object.keys((request.query as object | undefined) ?? {})[0];
    if (extra !== undefined) throw ApiError.badParameter(extra, `${extra} is not a parameter of this route.`);
    const scope = RequestContext.current();
    if (!scope) throw new Error('No request scope: the access hook runs first');
    await this.hub.ready();
    const raw = openEventStream(request, reply, 3000);
    if (!raw) return;
    const client = new StreamClient(
      scope.companyUuid,
      streamPrincipal(this.moduleRef, scope),
      raw,
      scope.portal?.expiresAt,
      this.visibility.readableSet(),
    );
    const last = request.headers['last-event-id'];
    await this.hub.subscribe(client, typeof last === 'string' ? last : undefined).catch(() => client.end());
  }
}
