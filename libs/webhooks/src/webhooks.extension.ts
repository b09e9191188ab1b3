import { Global } from '@nestjs/common';
import { Extension, WRITE_LISTENERS } from '@wharf/core';
import { WebhookSender } from './delivery/webhook-sender';
import { WebhookEndpointsService } from './endpoints/webhook-endpoints.service';
import { CreateWebhooks1700000000100 } from './migrations/1700000000100-create-webhooks';
import { OutboxWriter } from './outbox/outbox.writer';

/**
 * The producer side of webhooks, loaded by every process: tables, the outbox written inside each
 * resource write, endpoint management. Consumers (relay, delivery) live in `@wharf/webhooks/worker`.
 */
@Global()
@Extension({
  name: 'webhooks',
  namespace: 'int/v1',
  entities: [],
  migrations: [CreateWebhooks1700000000100],
  providers: [
    OutboxWriter,
    { provide: WRITE_LISTENERS, useFactory: (outbox: OutboxWriter) => [outbox], inject: [OutboxWriter] },
    WebhookEndpointsService,
    WebhookSender,
  ],
  exports: [WRITE_LISTENERS, WebhookEndpointsService, WebhookSender],
})
export class WebhooksExtension {}
