import { Injectable } from '@nestjs/common';
import {
  attributePointer,
  ApiError,
  ResourceChange,
  ResourceHooks,
  ResourceRow,
  ResourceServices,
  WriteTransaction,
} from '@wharf/core';
import { Driver } from '../drivers/driver.entity';

/** The order status machine: every other move is refused. */
export const ORDER_MOVES: Record<string, string[]> = {
  created: ['dispatched', 'canceled'],
  dispatched: ['enroute', 'canceled'],
  enroute: ['completed', 'canceled'],
  completed: [],
  canceled: [],
};

/** The driver event of the moves that concern the order's driver. */
const DRIVER_EVENTS: Record<string, string> = {
  enroute: 'driver.route_started',
  completed: 'driver.delivery_completed',
};

/** 422 naming both states unless `from → to` is a move of the machine. */
export function assertOrderMove(from: string, to: string): void {
  if (ORDER_MOVES[from]?.includes(to)) return;
  const next = ORDER_MOVES[from]?.length
    ? `from "${from}" it can move to ${ORDER_MOVES[from].map((s) => `"${s}"`).join(' or ')}`
    : `"${from}" is final`;
  throw ApiError.invalid(
    attributePointer('status'),
    `An order cannot move from "${from}" to "${to}": ${next}.`,
  );
}

/**
 * Orders start `created` and move only along ORDER_MOVES, whichever route writes them (PUT, PATCH, the
 * status route); dispatching needs a driver. Each move emits, in the same transaction,
 * `order.status_changed` and `order.<status>` (`previous_status`), and `driver.route_started` /
 * `driver.delivery_completed` (`order_uuid`, data = the driver) when the order goes enroute / completes.
 */
@Injectable()
export class OrderHooks implements ResourceHooks {
  constructor(private readonly services: ResourceServices) {}

  beforeCreate(_tx: WriteTransaction, values: Record<string, unknown>): void {
    if (values.status !== undefined && values.status !== 'created') {
      throw ApiError.invalid(
        attributePointer('status'),
        `An order starts as "created"; it cannot be created as "${values.status as string}".`,
      );
    }
  }

  beforeUpdate(_tx: WriteTransaction, before: ResourceRow, values: Record<string, unknown>): void {
    const moving = values.status !== undefined && values.status !== before.status;
    if (moving) assertOrderMove(before.status, values.status as string);
    const status = (moving ? values.status : before.status) as string;
    const driver = values.driver_uuid !== undefined ? values.driver_uuid : before.driver_uuid;
    if ((status === 'dispatched' || status === 'enroute') && !driver) {
      throw ApiError.invalid(
        attributePointer('driver_uuid'),
        moving
          ? `An order needs a driver to move to "${status}": set driver_uuid.`
          : `A ${status} order needs a driver.`,
      );
    }
  }

  async afterWrite(tx: WriteTransaction, change: ResourceChange): Promise<void> {
    const move = change.changes?.status as [string, string] | undefined;
    if (!move) return;
    const [previous, status] = move;
    const order = change.record;
    for (const name of ['order.status_changed', `order.${status}`]) {
      tx.emit({ name, record: order, additionalData: { previous_status: previous } });
    }
    const driverEvent = DRIVER_EVENTS[status];
    const driverUuid = order.driver_uuid as string | null;
    if (!driverEvent || !driverUuid) return;
    const driver = await this.services.for(Driver).findIn(tx, driverUuid);
    if (driver) tx.emit({ name: driverEvent, record: driver, additionalData: { order_uuid: order.uuid } });
  }
}
