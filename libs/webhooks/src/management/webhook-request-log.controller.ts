import { HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors, ApiUuidParam, Permission, Resource } from '@wharf/core';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { QUEUED_DELIVERIES_SCHEMA } from './queued-deliveries.schema';
import { WebhookRequestLog } from '../request-logs/webhook-request-log.entity';

/**
 * `/int/v1/webhook-request-logs`: one row per attempt, read-only (list with the resource list grammar,
 * e.g. `?webhook_endpoint_uuid=…&status=failed&sent_at_gte=…`, and get), plus resend.
 */
@Resource(WebhookRequestLog, { routes: ['list', 'find'] })
export class WebhookRequestLogController {
  constructor(private readonly recovery: DeliveryRecoveryService) {}

  @Post(':uuid/resend')
  // A delivery to an endpoint again, as recover does.
  @Permission('webhooks.endpoints:write')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'resendWebhookRequestLog',
    summary: 'Send this event to this endpoint again',
    description:
      'Queues the delivery again with the same envelope and webhook-id; a test send, or an event no longer ' +
      'stored, is a 422.',
  })
  @ApiUuidParam()
  @ApiErrors(422)
  @ApiOkResponse({ description: 'What was queued.', schema: QUEUED_DELIVERIES_SCHEMA })
  resend(@Param('uuid') uuid: string) {
    return this.recovery.resend(uuid);
  }
}
