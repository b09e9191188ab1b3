import { Extension } from '@wharf/core';
import { DriverLocationService } from './drivers/driver-location.service';
import { DriverController } from './drivers/driver.controller';
import { Driver } from './drivers/driver.entity';
import { FLEET_EVENTS } from './fleet.events';
import { CreateVehicles1700000002000 } from './migrations/1700000002000-create-vehicles';
import { CreateDrivers1700000002001 } from './migrations/1700000002001-create-drivers';
import { CreateOrders1700000002002 } from './migrations/1700000002002-create-orders';
import { ListIndexes1700000002003 } from './migrations/1700000002003-list-indexes';
import { SearchIndexes1700000002004 } from './migrations/1700000002004-search-indexes';
import { OrderStatusService } from './orders/order-status.service';
import { OrderController } from './orders/order.controller';
import { Order } from './orders/order.entity';
import { VehicleController } from './vehicles/vehicle.controller';
import { Vehicle } from './vehicles/vehicle.entity';

/** Vehicles, drivers and orders with their domain events, served under /fleet/int/v1. */
@Extension({
  name: 'fleet',
  entities: [Vehicle, Driver, Order],
  migrations: [
    CreateVehicles1700000002000,
    CreateDrivers1700000002001,
    CreateOrders1700000002002,
    ListIndexes1700000002003,
    SearchIndexes1700000002004,
  ],
  controllers: [VehicleController, DriverController, OrderController],
  // The resources' hooks (OrderHooks, DriverHooks) are registered from their @ResourceModel.
  providers: [DriverLocationService, OrderStatusService],
  events: FLEET_EVENTS,
  // Beyond each resource's read and write: the actions a dispatcher or a driver's app is given alone.
  permissions: [
    {
      name: 'fleet.orders:dispatch',
      description: 'Move orders along their status: dispatch, start, complete, cancel',
    },
    { name: 'fleet.drivers:locate', description: 'Record where drivers are (driver.location_changed)' },
  ],
})
export class FleetExtension {}
