import { Injectable } from '@nestjs/common';
import { ResourceChange, ResourceHooks, WriteTransaction } from '@wharf/core';

/** `driver.status_changed` with the status it left, in the same transaction as the change. */
@Injectable()
export class DriverHooks implements ResourceHooks {
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
