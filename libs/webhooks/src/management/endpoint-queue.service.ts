import { Injectable } from '@nestjs/common';
import { ResourceServices, orNull } from '@wharf/core';
import { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import { DeliveryStore } from '../store/delivery.store';

/** OpenAPI schema of `GET /webhook-endpoints/:uuid/queue`. */
export const ENDPOINT_QUEUE_SCHEMA = {
  type: 'object',
  properties: {
    webhook_endpoint_queue: {
      type: 'object',
      properties: {
        webhook_endpoint_uuid: { type: 'string', format: 'uuid' },
        in_flight: {
          type: 'integer',
          description:
            'Deliveries admitted to the workers: being sent, or about to be. At most max_in_flight are sent at ' +
            'once; an endpoint that answers fast has several times that fetched, ready to go as sends end.',
        },
        waiting: {
          type: 'integer',
          description: 'Deliveries due, waiting for a free slot of this endpoint.',
        },
        retrying: { type: 'integer', description: 'Deliveries waiting for their next attempt time.' },
        max_in_flight: { type: 'integer' },
        throttled: { type: 'boolean' },
        throttled_reason: orNull({ type: 'string' }),
      },
      required: ['webhook_endpoint_uuid', 'in_flight', 'waiting', 'retrying', 'max_in_flight', 'throttled'],
    },
  },
  required: ['webhook_endpoint_queue'],
};

interface EndpointRecord {
  uuid: string;
  max_in_flight: number;
  throttled: boolean;
  throttled_reason: string | null;
}

/** What an endpoint's deliveries are doing right now, for the console. */
@Injectable()
export class EndpointQueueService {
  constructor(
    private readonly store: DeliveryStore,
    private readonly services: ResourceServices,
  ) {}

  async queue(uuid: string) {
    // Through the resource service: the caller's company only, 404 for any other endpoint.
    const { webhook_endpoint: endpoint } = (await this.services
      .for(WebhookEndpoint)
      .find(uuid)) as unknown as {
      webhook_endpoint: EndpointRecord;
    };
    const counts = await this.store.queueCounts(endpoint.uuid);
    return {
      webhook_endpoint_queue: {
        webhook_endpoint_uuid: endpoint.uuid,
        ...counts,
        max_in_flight: endpoint.max_in_flight,
        throttled: endpoint.throttled,
        throttled_reason: endpoint.throttled_reason,
      },
    };
  }
}
