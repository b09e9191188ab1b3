import { Extension } from '@wharf/core';
import { CreateYards1800000100000 } from './migrations/1800000100000-create-yards';
import { YardController } from './yards/yard.controller';
import { Yard } from './yards/yard.entity';
import { YardService } from './yards/yard.service';

/** Yards, served under /acme-yards/int/v1, with a custom `yard.closed` event. */
@Extension({
  name: 'acme-yards',
  entities: [Yard],
  migrations: [CreateYards1800000100000],
  controllers: [YardController],
  providers: [YardService],
  events: [
    {
      name: 'yard.closed',
      description: 'A yard was closed (POST /acme-yards/int/v1/yards/:uuid/close); data is the yard.',
    },
  ],
})
export class AcmeYardsExtension {}
