import { Body, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors, ApiUuidParam, Permission, Resource, resourceSchemas, schemaRef } from '@wharf/core';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { EndpointProbeService } from './endpoint-probe.service';
import { ENDPOINT_QUEUE_SCHEMA, EndpointQueueService } from './endpoint-queue.service';
import { QUEUED_DELIVERIES_SCHEMA } from './queued-deliveries.schema';
import { RecoverDto } from './recover.dto';
import { TestEventDto } from './test-event.dto';
import { WEBHOOK_REQUEST_LOG } from '../request-logs/webhook-request-log.entity';
import { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import { WEBHOOK_ENDPOINT, WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';

const schemas = resourceSchemas(WEBHOOK_ENDPOINT);
const SECRET = { type: 'string', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
const WITH_SECRET = {
  type: 'object',
  properties: {
    webhook_endpoint: {
      allOf: [
        schemaRef(schemas.record),
        { type: 'object', properties: { secret: SECRET }, required: ['secret'] },
      ],
    },
  },
  required: ['webhook_endpoint'],
};
const ENDPOINT = schemaRef(schemas.single);

/**
 * `/int/v1/webhook-endpoints`: list, get, update and delete are the generated resource routes; create
 * returns the secret once; the rest are the console's actions on one endpoint (its headers and filter
 * test in endpoint-routing.controller.ts). Reads need webhooks.endpoints:read, writes and actions
 * webhooks.endpoints:write, the secret its own permissions.
 */
@Resource(WebhookEndpoint)
export class WebhookEndpointController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly probe: EndpointProbeService,
    private readonly recovery: DeliveryRecoveryService,
    private readonly queues: EndpointQueueService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'The URL must pass the target policy; events are names from GET /webhook-events or "*" (default). ' +
      'The response is the only one that carries the signing secret.',
  })
  @ApiBody({ schema: schemaRef(schemas.createBody) })
  @ApiCreatedResponse({
    description: 'The endpoint, with its secret (shown this once).',
    schema: WITH_SECRET,
  })
  create(@Body() body: unknown) {
    return this.endpoints.createFromBody(body);
  }

  @Get(':uuid/secret')
  @Permission('webhooks.secrets:reveal')
  @ApiOperation({
    operationId: 'getWebhookEndpointSecret',
    summary: 'Reveal the current signing secret',
    description: 'The secret deliveries are signed with (stored encrypted with APP_KEY).',
  })
  @ApiUuidParam()
  @ApiErrors(409)
  @ApiOkResponse({
    schema: { type: 'object', properties: { secret: SECRET }, required: ['secret'] },
  })
  secret(@Param('uuid') uuid: string) {
    return this.endpoints.revealSecret(uuid);
  }

  @Get(':uuid/queue')
  @ApiOperation({
    operationId: 'getWebhookEndpointQueue',
    summary: "The endpoint's pending deliveries: in flight, waiting, retrying",
    description:
      'Each endpoint has at most max_in_flight attempts running at once (1 while throttled after repeated ' +
      'timeouts); the rest wait without holding a worker.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ schema: ENDPOINT_QUEUE_SCHEMA })
  queue(@Param('uuid') uuid: string) {
    return this.queues.queue(uuid);
  }

  @Post(':uuid/rotate-secret')
  @Permission('webhooks.secrets:rotate')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookEndpointSecret',
    summary: 'Rotate the signing secret',
    description: 'The old secret stays valid for 24 h; deliveries meanwhile carry both signatures.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ description: 'The endpoint, with its new secret.', schema: WITH_SECRET })
  rotateSecret(@Param('uuid') uuid: string) {
    return this.endpoints.rotateSecret(uuid);
  }

  @Post(':uuid/enable')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'enableWebhookEndpoint',
    summary: 'Enable the endpoint',
    description: 'Sets `status` to enabled: deliveries to it resume.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ schema: ENDPOINT })
  enable(@Param('uuid') uuid: string) {
    return this.endpoints.enable(uuid);
  }

  @Post(':uuid/disable')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'disableWebhookEndpoint',
    summary: 'Disable the endpoint (no deliveries)',
    description: 'Sets `status` to disabled: nothing is delivered to it until it is enabled again.',
  })
  @ApiUuidParam()
  @ApiOkResponse({ schema: ENDPOINT })
  disable(@Param('uuid') uuid: string) {
    return this.endpoints.disable(uuid);
  }

  @Post(':uuid/test')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'sendWebhookEndpointTest',
    summary: 'Send a test event now',
    description:
      'Delivered at once (not through the retry queue), signed like any delivery, even to a disabled ' +
      'endpoint, and logged with test: true. Returns that request-log row.',
  })
  @ApiUuidParam()
  @ApiBody({ type: TestEventDto, required: false })
  @ApiOkResponse({ schema: schemaRef(resourceSchemas(WEBHOOK_REQUEST_LOG).single) })
  test(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.probe.sendTest(uuid, body);
  }

  @Post(':uuid/verify')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyWebhookEndpoint',
    summary: 'Verify ownership of the endpoint',
    description:
      'POSTs a signed {"type": "webhook.verification", "challenge": "<random>"}; the endpoint proves ownership ' +
      'by answering 2xx with the challenge string, or {"challenge": "<same>"}, as its body. Success sets ' +
      'verified_at; anything else is a 422 saying what came back.',
  })
  @ApiUuidParam()
  @ApiErrors(422)
  @ApiOkResponse({ schema: ENDPOINT })
  verify(@Param('uuid') uuid: string) {
    return this.probe.verify(uuid);
  }

  @Post(':uuid/recover')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'recoverWebhookEndpoint',
    summary: 'Resend failed deliveries of a time window',
    description:
      'Every failed delivery to this endpoint of an event created in [since, until] is queued again with its ' +
      'original envelope and webhook-id. The answer lists those of the events the caller may read; ' +
      '`meta.queued` counts them all.',
  })
  @ApiUuidParam()
  @ApiBody({ type: RecoverDto })
  @ApiOkResponse({ description: 'What was queued.', schema: QUEUED_DELIVERIES_SCHEMA })
  recover(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.recovery.recover(uuid, body);
  }
}
