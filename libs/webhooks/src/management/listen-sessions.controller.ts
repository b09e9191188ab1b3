import { Body, Controller, Delete, HttpCode, Param, Post, Get, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { ApiError, ApiErrors, ApiUuidParam, Permission, RequestContext } from '@wharf/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openEventStream, streamPrincipal } from '../activity/event-stream';
import { ListenAnswerDto, ListenSessionDto } from './listen-session.dto';
import { ANSWERED_SCHEMA, ENDED_SCHEMA, SESSION_SCHEMA } from './listen-sessions.schema';
import { ListenSessionsService } from './listen-sessions.service';

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
  @ApiCreatedResponse({ schema: SESSION_SCHEMA })
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
  @ApiOkResponse({ schema: ANSWERED_SCHEMA })
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
  @ApiOkResponse({ schema: ENDED_SCHEMA })
  end(@Param('uuid') uuid: string) {
    return this.sessions.end(uuid);
  }
}
