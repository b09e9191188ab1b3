import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { Resource } from '@wharf/core';
import { OrderStatusService } from './order-status.service';
import { Order } from './order.entity';

@Resource(Order)
export class OrderController {
  constructor(private readonly statuses: OrderStatusService) {}

  /** `{"status": …}` → the order, moved along the status machine (422 otherwise). */
  @Post(':uuid/status')
  @HttpCode(200)
  status(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.statuses.move(uuid, body);
  }
}
