import { encryptSecret, generateSecret } from '@wharf/webhooks';
import { FuzzCompany, FuzzTarget } from './openapi-fuzzer';

/** Valid records of every resource for one company, so path parameters hit real rows of both companies. */
export async function seedCompany(target: FuzzTarget, company: FuzzCompany, appKey: Buffer): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${target.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${company.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300)
      throw new Error(`seeding ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, any>;
  };
  const location = (await post('/int/v1/locations', { location: { name: 'Depot', city: 'Rotterdam' } }))
    .location;
  await post('/inventory/int/v1/warehouses', {
    warehouse: {
      name: 'Main',
      address: '1 Quay',
      city: 'Rotterdam',
      state: 'ZH',
      zip: '3011',
      capacity: 10,
      location_uuid: location.uuid,
      sections: [{ name: 'A' }, { name: 'B' }],
      docks: [{ dock_number: '1' }],
    },
  });
  const vehicle = (await post('/fleet/int/v1/vehicles', { vehicle: { plate_number: 'RT-1', year: 2020 } }))
    .vehicle;
  const driver = (
    await post('/fleet/int/v1/drivers', { driver: { name: 'Ana', vehicle_uuid: vehicle.uuid } })
  ).driver;
  await post('/fleet/int/v1/orders', {
    order: { driver_uuid: driver.uuid, pickup_location_uuid: location.uuid, meta: { ref: 1 } },
  });
  await post('/int/v1/api-keys', { name: 'second' });
  // Endpoints with loopback targets (the policy refuses them at save time, so they are written directly):
  // a test send or verify is refused before any connection.
  for (const url of ['http://127.0.0.1:9/hook', 'https://localhost./hook']) {
    await target.query(
      `INSERT INTO webhook_endpoints (uuid, company_uuid, url, secret) VALUES (gen_random_uuid(), $1, $2, $3)`,
      [company.uuid, url, encryptSecret(generateSecret(), appKey)],
    );
  }
}
