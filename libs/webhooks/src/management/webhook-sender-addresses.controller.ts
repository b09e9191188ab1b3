import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig, Permission } from '@wharf/core';

/** `GET /int/v1/webhook-sender-addresses`: egress addresses receivers may allowlist (WEBHOOKS_SENDER_ADDRESSES). */
@ApiTags('webhook-sender-addresses')
@Permission('webhooks.endpoints:read')
@Controller('webhook-sender-addresses')
export class WebhookSenderAddressesController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @ApiOperation({
    operationId: 'listWebhookSenderAddresses',
    summary: 'Addresses deliveries come from',
    description: 'Receivers may allowlist them besides verifying signatures.',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        webhook_sender_addresses: { type: 'array', items: { type: 'string' }, example: ['203.0.113.10'] },
      },
      required: ['webhook_sender_addresses'],
    },
  })
  list() {
    return { webhook_sender_addresses: this.config.webhooks.senderAddresses };
  }
}
