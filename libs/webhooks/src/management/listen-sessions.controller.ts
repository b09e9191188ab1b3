import { Body, Controller, Delete, HttpCode, Param, Post, Get, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import {
  ApiError,
  ApiErrors,
  ApiUuidParam,
  Permission,
  RequestContext,
  resourceSchemas,
  schemaRef,
} from '@wharf/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openEventStream, streamPrincipal } from '../activity/event-stream';
import { WEBHOOK_ENDPOINT } from '../endpoints/webhook-endpoints.service';
import { WEBHOOK_REQUEST_LOG } from '../request-logs/webhook-request-log.entity';
import { EndpointProbeService } from './endpoint-probe.service';
import { ListenAnswerDto, ListenSessionDto, TriggerEventDto } from './listen-session.dto';
import { ListenSessionsService } from './listen-sessions.service';

const UUID = { type: 'string', format: 'uuid' };
const SESSION = {
  type: 'object',
  properties: {
    listen_session: {
      type: 'object',
      properties: {
        uuid: UUID,
        forward_to: { type: 'string', example: 'http://localhost:4242/webhook' },
        secret: {
          type: 'string',
          description: 'The signing secret of the session’s deliveries (shown this once).',
          example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        },
        webhook_endpoint: schemaRef(resourceSchemas(WEBHOOK_ENDPOINT).record),
      },
      required: ['uuid', 'forward_to', 'secret', 'webhook_endpoint'],
    },
  },
  required: ['listen_session'],
};
const ENDED = {
  type: 'object',
  properties: {
    listen_session: {
      type: 'object',
      properties: { uuid: UUID, status: { type: 'string', const: 'ended' } },
      required: ['uuid', 'status'],
    },
  },
  required: ['listen_session'],
};
const ANSWERED = {
  type: 'object',
  properties: {
    listen_answer: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        received: {
          type: 'boolean',
          description: 'false when the send had stopped waiting (it timed out and is retried).',
        },
      },
      required: ['id', 'received'],
    },
  },
  required: ['listen_answer'],
};
const TRIGGERED = {
  type: 'object',
  properties: {
    webhook_trigger: {
      type: 'object',
      properties: {
        event: { type: 'string', example: 'order.created' },
        event_id: { type: 'string', example: 'evt_0mwzr4opp98935eebd9a13b9cd204' },
        webhook_request_logs: {
          type: 'array',
          description: 'One test send per endpoint it went to.',
          items: schemaRef(resourceSchemas(WEBHOOK_REQUEST_LOG).record),
        },
      },
      required: ['event', 'event_id', 'webhook_request_logs'],
    },
  },
  required: ['webhook_trigger'],
};

/**
 * `wharf listen`: a session is an endpoint of type `listen` whose deliveries stream to the CLI, which
 * forwards them to a local URL and posts back what it answered. Every route needs webhooks.listen:open.
 */
@ApiTags('listen-sessions')
@Permission('webhooks.listen:open')
@Controller('listen-sessions')
export class ListenSessionsController {
  constructor(
    private readonly sessions: ListenSessionsService,
    // The api's auth services, looked up when a stream opens: the worker loads this module without them.
    private readonly moduleRef: ModuleRef,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createListenSession',
    summary: 'Open a listen session (wharf listen)',
    description:
      'Makes an endpoint of type listen, subscribed to `events` (default "*") with the `payload` and ' +
      '`filter` given, as any endpoint: subscribing needs the read of its events. Its deliveries come down ' +
      'GET …/stream until the session ends (DELETE) or its stream has been gone for 10 minutes. The ' +
      'response is the only one that carries the signing secret.',
  })
  @ApiBody({ type: ListenSessionDto })
  @ApiCreatedResponse({ schema: SESSION })
  open(@Body() body: unknown) {
    return this.sessions.open(body);
  }

  @Get(':uuid/stream')
  @ApiOperation({
    operationId: 'streamListenSession',
    summary: 'The session’s deliveries, live (Server-Sent Events)',
    description:
      'A `delivery` event per delivery to the session: `{event, event_id, headers, body, deadline}`, the ' +
      'exact body and the Standard Webhooks headers to forward it with. Its id is its place in the stream: ' +
      'send the last one back as `Last-Event-ID` on reconnecting to resume right after it. Answer each with ' +
      'POST …/answers before `deadline` (epoch ms); a comment every 15 s.',
  })
  @ApiUuidParam()
  @ApiHeader({ name: 'last-event-id', required: false, description: 'Resume after this event.' })
  @ApiErrors(404)
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'An event stream that stays open.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  async stream(
    @Param('uuid') uuid: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const extra = Object.keys((request.query as object | undefined) ?? {})[0];
    if (extra !== undefined) throw ApiError.badParameter(extra, `${extra} is not a parameter of this route.`);
    const scope = RequestContext.current();
    if (!scope) throw new Error('No request scope: the access hook runs first');
    const after = await this.sessions.check(uuid, request.headers['last-event-id']);
    const raw = openEventStream(request, reply, 1000);
    if (raw) await this.sessions.stream(uuid, after, raw, streamPrincipal(this.moduleRef, scope));
  }

  @Post(':uuid/answers')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'answerListenSession',
    summary: 'What the local URL answered to one delivery',
    description:
      'Recorded as the attempt’s response in the request log (a 2xx is a success; an `error` a failed ' +
      'attempt, retried). 404 when the stream holds no such event.',
  })
  @ApiUuidParam()
  @ApiBody({ type: ListenAnswerDto })
  @ApiErrors(404)
  @ApiOkResponse({ schema: ANSWERED })
  answer(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.sessions.answer(uuid, body);
  }

  @Delete(':uuid')
  @ApiOperation({
    operationId: 'endListenSession',
    summary: 'End a listen session',
    description:
      'Deletes the session’s endpoint, its pending deliveries and its request log, and its stream.',
  })
  @ApiUuidParam()
  @ApiErrors(404)
  @ApiOkResponse({ schema: ENDED })
  end(@Param('uuid') uuid: string) {
    return this.sessions.end(uuid);
  }
}

/** `wharf trigger`: a catalog event sent now to every endpoint (and listen session) it would go to. */
@ApiTags('webhook-events')
@Permission('webhooks.endpoints:write')
@Controller('webhook-events')
export class WebhookTriggerController {
  constructor(private readonly probe: EndpointProbeService) {}

  @Post(':event/trigger')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'triggerWebhookEvent',
    summary: 'Send a test event to every endpoint subscribed to it',
    description:
      'One event of that name, with the catalog’s example data or `data`, sent now as a test send ' +
      '(signed, logged with test: true, not retried) to each enabled endpoint subscribed to it whose filter ' +
      'it matches, listen sessions included. Returns the event id and the request-log row of each send.',
  })
  @ApiParam({ name: 'event', example: 'order.created' })
  @ApiBody({ type: TriggerEventDto, required: false })
  @ApiErrors(404)
  @ApiOkResponse({ schema: TRIGGERED })
  trigger(@Param('event') event: string, @Body() body: unknown) {
    return this.probe.trigger(event, body);
  }
}
