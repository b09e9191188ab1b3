export * from './fleet.extension';
export * from './fleet.events';
export * from './vehicles/vehicle.entity';
export * from './drivers/driver.entity';
export * from './drivers/driver-location.dto';
export * from './orders/order.entity';
export * from './orders/order.hooks';
