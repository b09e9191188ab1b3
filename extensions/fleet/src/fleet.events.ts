import { EventDeclaration } from '@wharf/core';

// Example payloads for the event catalog: `data` as delivered (every record repeats its uuid as `id`).
const AT = '2026-11-20T10:00:00.000Z';
const COMPANY = '0f5c3a9e-1b2d-4c6e-8f0a-2b4d6f8a0c1e';
const stamps = { company_uuid: COMPANY, created_at: AT, updated_at: AT };
const VEHICLE = {
  id: '5b0f1c4e-3d2a-4f6b-9c8d-7e6f5a4b3c2d',
  uuid: '5b0f1c4e-3d2a-4f6b-9c8d-7e6f5a4b3c2d',
  plate_number: 'RT-482-K',
  make: 'Mercedes-Benz',
  model: 'Sprinter',
  year: 2024,
  status: 'active',
  ...stamps,
};
const DRIVER_COLUMNS = {
  id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
  uuid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
  vehicle_uuid: VEHICLE.uuid,
  name: 'Ana de Vries',
  phone: '+31 6 1234 5678',
  email: 'ana@example.com',
  status: 'active',
  location: { latitude: 51.9225, longitude: 4.47917, heading: 87.5, speed: 12.4, recorded_at: AT },
  location_updated_at: AT,
  ...stamps,
};
const DRIVER = { ...DRIVER_COLUMNS, vehicle: VEHICLE };
const place = (uuid: string, name: string) => ({
  id: uuid,
  uuid,
  name,
  street: null,
  city: 'Rotterdam',
  state: 'ZH',
  zip: '3011',
  country: 'NL',
  latitude: 51.92,
  longitude: 4.48,
  ...stamps,
});
const PICKUP = place('7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d', 'Waalhaven depot');
const DROPOFF = place('1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'Coolsingel store');
const order = (status: string, previous_status: string) => ({
  id: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
  uuid: '3e2d1c0b-9a8f-4e7d-8c6b-5a4f3e2d1c0b',
  reference: 'PO-10442',
  status,
  driver_uuid: DRIVER.uuid,
  pickup_location_uuid: PICKUP.uuid,
  dropoff_location_uuid: DROPOFF.uuid,
  scheduled_at: AT,
  notes: 'Ring at the loading bay.',
  meta: { pallets: 4 },
  ...stamps,
  driver: DRIVER_COLUMNS,
  pickup_location: PICKUP,
  dropoff_location: DROPOFF,
  additionalData: { previous_status },
});
const ORDER_UUID = order('created', 'created').uuid;

/** The fleet's custom events, listed in the webhook event catalog. */
export const FLEET_EVENTS: EventDeclaration[] = [
  {
    name: 'order.status_changed',
    description:
      'An order moved to another status (any move); data is the order after the move, additionalData.previous_status the status it left.',
    example: order('dispatched', 'created'),
  },
  ...[
    ['dispatched', 'created'],
    ['enroute', 'dispatched'],
    ['completed', 'enroute'],
    ['canceled', 'created'],
  ].map(([status, previous]) => ({
    name: `order.${status}`,
    description: `An order moved to "${status}"; data is the order, additionalData.previous_status the status it left.`,
    example: order(status, previous),
  })),
  {
    name: 'driver.location_changed',
    description:
      'A driver reported its location (POST /fleet/int/v1/drivers/:uuid/location); data is the driver, data.location = {latitude, longitude, heading, speed, recorded_at}.',
    example: { ...DRIVER, additionalData: {} },
  },
  {
    name: 'driver.route_started',
    description:
      'An order of the driver went enroute; data is the driver, additionalData.order_uuid the order.',
    example: { ...DRIVER, additionalData: { order_uuid: ORDER_UUID } },
  },
  {
    name: 'driver.delivery_completed',
    description:
      'An order of the driver was completed; data is the driver, additionalData.order_uuid the order.',
    example: { ...DRIVER, additionalData: { order_uuid: ORDER_UUID } },
  },
  {
    name: 'driver.status_changed',
    description:
      'A driver’s status changed (active ↔ inactive); data is the driver, additionalData.previous_status the status it left.',
    example: { ...DRIVER, status: 'inactive', additionalData: { previous_status: 'active' } },
  },
];
