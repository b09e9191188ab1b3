import { Injectable } from '@nestjs/common';
import { ResourceServices, readWriteBody } from '@wharf/core';
import { Yard } from './yard.entity';

@Injectable()
export class YardService {
  constructor(private readonly services: ResourceServices) {}

  /** Closes a yard through the resource service: hooks, `yard.updated` and `yard.closed` in one transaction. */
  async close(uuid: string) {
    const yards = this.services.for(Yard);
    const input = readWriteBody(yards.def, { closed: true }, true);
    return yards.transaction(async (tx) => {
      const before = await yards.lockIn(tx, uuid);
      const yard = await yards.updateIn(tx, before, input);
      if (!before.closed) tx.emit({ name: 'yard.closed', record: yard });
      return { yard };
    });
  }
}
