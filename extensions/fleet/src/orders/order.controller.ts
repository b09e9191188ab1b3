import { Body, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiUuidParam, Permission, Resource, dtoSchema, resourceSchemas, schemaRef } from '@wharf/core';
import { OrderStatusDto } from './order.dto';
import { OrderStatusService } from './order-status.service';
import { Order } from './order.entity';

@Resource(Order)
export class OrderController {
  constructor(private readonly statuses: OrderStatusService) {}

  /** `{"status": …}` → the order, moved along the status machine (422 otherwise). */
  @Post(':uuid/status')
  @Permission('fleet.orders:dispatch')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'moveOrderStatus',
    summary: 'Move an order to its next status',
    description:
      'One move of the status machine (created → dispatched → enroute → completed, or canceled before ' +
      'completion; dispatching needs a driver); ' +
      'any other move, staying in the same status included, is a 422. The body is the flat object.',
  })
  @ApiUuidParam()
  @ApiBody({ schema: dtoSchema(OrderStatusDto) })
  @ApiOkResponse({ description: 'The order.', schema: schemaRef(resourceSchemas('order').single) })
  status(@Param('uuid') uuid: string, @Body() body: unknown) {
    return this.statuses.move(uuid, body);
  }
}
