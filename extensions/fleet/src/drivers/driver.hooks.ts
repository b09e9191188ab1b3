import { Injectable } from '@nestjs/common';
import {
  ApiError,
  ResourceChange,
  ResourceHooks,
  ResourceRow,
  ResourceServices,
  WriteTransaction,
} from '@wharf/core';

/** Orders that cannot lose their driver (the status machine needs one until they complete). */
const ACTIVE_ORDER = new Set(['dispatched', 'enroute']);

/**
 * `driver.status_changed` with the status it left, in the same transaction as the change. A driver on an
 * active order cannot be deleted; the driver's other orders are unlinked (each an `order.updated`).
 */
@Injectable()
export class DriverHooks implements ResourceHooks {
  constructor(private readonly services: ResourceServices) {}

  async beforeDelete(tx: WriteTransaction, driver: ResourceRow): Promise<void> {
    const orders = await this.services.for('order').findAllIn(tx, 'driver_uuid', driver.uuid);
    const active = orders.filter((order) => ACTIVE_ORDER.has(order.status));
    if (active.length) {
      throw ApiError.of(
        409,
        `The driver is on ${active.length} active order(s) (${active.map((o) => o.uuid).join(', ')}): ` +
          'reassign, complete or cancel them before deleting the driver.',
      );
    }
  }

  afterWrite(tx: WriteTransaction, change: ResourceChange): void {
    const status = change.changes?.status;
    if (!status) return;
    tx.emit({
      name: 'driver.status_changed',
      record: change.record,
      additionalData: { previous_status: status[0] },
    });
  }
}
