import { Injectable } from '@nestjs/common';
import {
  ATTRIBUTES_POINTER,
  ApiError,
  BODY_POINTER,
  ResourceServices,
  readWriteBody,
  validateDto,
} from '@wharf/core';
import { OrderStatusDto } from './order.dto';
import { assertOrderMove } from './order.hooks';
import { Order } from './order.entity';

/** `POST /orders/:uuid/status {"status"}`: one explicit move, refused (422) unless the machine allows it. */
@Injectable()
export class OrderStatusService {
  constructor(private readonly services: ResourceServices) {}

  async move(uuid: string, body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw ApiError.invalid(BODY_POINTER, 'The body must be a JSON object: {"status": …}.');
    const errors = validateDto(
      OrderStatusDto,
      body as Record<string, unknown>,
      false,
      ATTRIBUTES_POINTER,
      'a status change',
    );
    if (errors.length) throw new ApiError(422, errors);
    const orders = this.services.for(Order);
    const input = readWriteBody(orders.def, body, true);
    return orders.transaction(async (tx) => {
      const before = await orders.lockIn(tx, uuid);
      // Staying in the same state is no move (a PUT echoing it is a no-op), so this route refuses it here.
      assertOrderMove(before.status, input.values.status as string);
      return { order: await orders.updateIn(tx, before, input) };
    });
  }
}
