import { Injectable } from '@nestjs/common';
import { Attempt, Destination, DestinationEndpoint, Message } from '../transport/destination';
import { HttpDestination } from '../transport/http.destination';
import { BrokerDestinations } from './broker.destinations';
import { LISTEN_TYPE } from './destination-types';
import { ListenDestination } from './listen.destination';

/**
 * The worker's (and the api's test sends') Destination: each delivery goes by its endpoint's type, HTTP
 * (the default) as it always went, a listen session's down its stream, any other type to its broker.
 */
@Injectable()
export class DestinationRouter implements Destination {
  constructor(
    private readonly http: HttpDestination,
    private readonly brokers: BrokerDestinations,
    private readonly listen: ListenDestination,
  ) {}

  prepare(): Promise<void> {
    return this.http.prepare();
  }

  send(endpoint: DestinationEndpoint, message: Message): Promise<Attempt> {
    switch (endpoint.type) {
      case undefined:
      case 'http':
        return this.http.send(endpoint, message);
      case LISTEN_TYPE:
        return this.listen.send(endpoint, message);
      default:
        return this.brokers.send(endpoint, message);
    }
  }

  async abort(): Promise<void> {
    await Promise.all([this.http.abort(), this.brokers.abort()]);
  }
}
