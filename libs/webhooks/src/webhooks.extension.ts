import { Global } from '@nestjs/common';
import { Extension, ResourcesModule } from '@wharf/core';
import { HttpDestination } from './transport/http.destination';
import { BrokerDestinations } from './destinations/broker.destinations';
import { DestinationRouter } from './destinations/destination-router';
import { ListenChannel } from './destinations/listen-channel';
import { ListenDestination } from './destinations/listen.destination';
import { ListenSessionsController } from './management/listen-sessions.controller';
import { WebhookTriggerController } from './management/webhook-trigger.controller';
import { ListenSessionsService } from './management/listen-sessions.service';
import { DestinationTypesController } from './management/destination-types.controller';
import { OAuth2Tokens } from './transport/oauth2-tokens';
import { WebhookSender } from './transport/webhook-sender';
import { WebhookEndpointController } from './management/webhook-endpoint.controller';
import { WebhookEndpoint } from './endpoints/webhook-endpoint.entity';
import { WebhookEndpointHooks } from './endpoints/webhook-endpoint.hooks';
import { WebhookEndpointsService } from './endpoints/webhook-endpoints.service';
import { DeliveryRecoveryService } from './management/delivery-recovery.service';
import { EndpointProbeService } from './management/endpoint-probe.service';
import { EndpointQueueService } from './management/endpoint-queue.service';
import { WebhookEventCatalog } from './events/webhook-event-catalog.service';
import { WebhookEventsController } from './management/webhook-events.controller';
import { WebhookSenderAddressesController } from './management/webhook-sender-addresses.controller';
import { CreateWebhooks1700000000100 } from './migrations/1700000000100-create-webhooks';
import { IndexWebhookRequestLogEvents1700000000101 } from './migrations/1700000000101-index-webhook-request-log-events';
import { LightenDeliveryWrites1700000000102 } from './migrations/1700000000102-lighten-delivery-writes';
import { ScheduleDeliveriesPerEndpoint1700000000103 } from './migrations/1700000000103-schedule-deliveries-per-endpoint';
import { ListIndexes1700000000104 } from './migrations/1700000000104-list-indexes';
import { SearchIndexes1700000000105 } from './migrations/1700000000105-search-indexes';
import { TrimPerDeliveryIndexes1700000000106 } from './migrations/1700000000106-trim-per-delivery-indexes';
import { SearchRequestLogsWithoutEventIds1700000000107 } from './migrations/1700000000107-search-request-logs-without-event-ids';
import { SearchRequestLogsThroughKeys1700000000108 } from './migrations/1700000000108-search-request-logs-through-keys';
import { QueueUndispatchedEvents1700000000109 } from './migrations/1700000000109-queue-undispatched-events';
import { SortRequestLogsByTimeAndStatus1700000000110 } from './migrations/1700000000110-sort-request-logs-by-time-and-status';
import { NumberAdmissions1700000000111 } from './migrations/1700000000111-number-admissions';
import { StoreDeliveryStates1700000000112 } from './migrations/1700000000112-store-delivery-states';
import { RouteEndpoints1700000000113 } from './migrations/1700000000113-route-endpoints';
import { PartitionEventsAndLogs1700000000114 } from './migrations/1700000000114-partition-events-and-logs';
import { CreateErasures1700000000115 } from './migrations/1700000000115-create-erasures';
import { NotifyActivity1700000000116 } from './migrations/1700000000116-notify-activity';
import { ActivityHub } from './activity/activity-hub';
import { WebhookActivityController } from './activity/webhook-activity.controller';
import { ListEventsAndThinPayloads1700000000117 } from './migrations/1700000000117-list-events-and-thin-payloads';
import { RequireQueuedEventIds1700000000118 } from './migrations/1700000000118-require-queued-event-ids';
import { AddDestinationTypes1796185649943 } from './migrations/1796185649943-add-destination-types';
import { AddTraceContext1796198966113 } from './migrations/1796198966113-add-trace-context';
import { ErasureService } from './management/erasure.service';
import { ErasuresController } from './management/erasures.controller';
import { OutboxSignal } from './outbox/outbox.signal';
import { OutboxWriter } from './outbox/outbox.writer';
import { OUTBOX_WRITES } from './outbox/outbox-writes';
import { OutboxStore } from './store/outbox.store';
import { RequestLogStore } from './store/request-logs.store';
import { EndpointRoutingController } from './management/endpoint-routing.controller';
import { EventRoutingController } from './management/event-routing.controller';
import { EventRoutingService } from './management/event-routing.service';
import { EventsController } from './management/events.controller';
import { EventsService } from './management/events.service';
import { EventsStore } from './store/events.store';
import { FilterEvaluator } from './filters/filter-evaluator';
import { OPERATIONAL_EVENT_DECLARATIONS } from './events/operational-event-declarations';
import { EventVisibility, WEBHOOK_PERMISSIONS } from './events/event-visibility';
import { WebhookRequestLogController } from './management/webhook-request-log.controller';
import { DeliveryStore } from './store/delivery.store';
import { WebhookRequestLog } from './request-logs/webhook-request-log.entity';

/**
 * The producer side of webhooks, loaded by every process: tables, the outbox written inside each
 * resource write, the delivery store, and the management API of the console under `/int/v1` (endpoints,
 * request logs, the event catalog). The delivery stages, and the delivery queue they share, live in
 * `@wharf/webhooks/worker`: no BullMQ in a process that only writes events.
 */
@Global()
@Extension({
  name: 'webhooks',
  namespace: 'int/v1',
  entities: [WebhookEndpoint, WebhookRequestLog],
  events: OPERATIONAL_EVENT_DECLARATIONS,
  // Besides webhooks.endpoints:read|write and webhooks.logs:read, its resources'.
  permissions: WEBHOOK_PERMISSIONS,
  migrations: [
    CreateWebhooks1700000000100,
    IndexWebhookRequestLogEvents1700000000101,
    LightenDeliveryWrites1700000000102,
    ScheduleDeliveriesPerEndpoint1700000000103,
    ListIndexes1700000000104,
    SearchIndexes1700000000105,
    TrimPerDeliveryIndexes1700000000106,
    SearchRequestLogsWithoutEventIds1700000000107,
    SearchRequestLogsThroughKeys1700000000108,
    QueueUndispatchedEvents1700000000109,
    SortRequestLogsByTimeAndStatus1700000000110,
    NumberAdmissions1700000000111,
    StoreDeliveryStates1700000000112,
    RouteEndpoints1700000000113,
    PartitionEventsAndLogs1700000000114,
    CreateErasures1700000000115,
    NotifyActivity1700000000116,
    ListEventsAndThinPayloads1700000000117,
    RequireQueuedEventIds1700000000118,
    AddDestinationTypes1796185649943,
    AddTraceContext1796198966113,
  ],
  imports: [ResourcesModule],
  controllers: [
    WebhookEndpointController,
    WebhookRequestLogController,
    WebhookEventsController,
    WebhookSenderAddressesController,
    ErasuresController,
    EventRoutingController,
    EndpointRoutingController,
    WebhookActivityController,
    EventsController,
    DestinationTypesController,
    ListenSessionsController,
    WebhookTriggerController,
  ],
  providers: [
    ActivityHub,
    OutboxWriter,
    OutboxSignal,
    WebhookEndpointsService,
    WebhookEndpointHooks,
    WebhookEventCatalog,
    EndpointProbeService,
    EndpointQueueService,
    DeliveryRecoveryService,
    WebhookSender,
    OAuth2Tokens,
    HttpDestination,
    BrokerDestinations,
    ListenChannel,
    ListenDestination,
    ListenSessionsService,
    DestinationRouter,
    DeliveryStore,
    FilterEvaluator,
    EventRoutingService,
    ErasureService,
    EventsStore,
    EventsService,
    OutboxStore,
    { provide: OUTBOX_WRITES, useExisting: OutboxStore },
    RequestLogStore,
    EventVisibility,
  ],
  exports: [
    WebhookEndpointsService,
    WebhookSender,
    OAuth2Tokens,
    HttpDestination,
    BrokerDestinations,
    ListenChannel,
    DestinationRouter,
    WebhookEventCatalog,
    DeliveryStore,
    OutboxStore,
    RequestLogStore,
    ErasureService,
  ],
})
export class WebhooksExtension {}
