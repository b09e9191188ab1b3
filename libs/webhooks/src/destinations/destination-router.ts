import { Injectable } from '@nestjs/common';
import { Attempt, Destination, DestinationEndpoint, Message } from '../transport/destination';
import { HttpDestination } from '../transport/http.destination';
import { BrokerDestinations } from './broker.destinations';

/**
 * The worker's (and the api's test sends') Destination: each delivery goes by its endpoint's type, HTTP
 * (the default) as it always went, any other type to its broker.
 */
@Injectable()
export class DestinationRouter implements Destination {
  constructor(
    private readonly http: HttpDestination,
    private readonly brokers: BrokerDestinations,
  ) {}

  prepare(): Promise<void> {
    return this.http.prepare();
  }

  send(endpoint: DestinationEndpoint, message: Message): Promise<Attempt> {
    switch (endpoint.type) {
      case undefined:
      case 'http':
        return this.http.send(endpoint, message);
      default:
        return this.brokers.send(endpoint, message);
    }
  }

  async abort(): Promise<void> {
    await Promise.all([this.http.abort(), this.brokers.abort()]);
  }
}
