import { ERASED, Redaction, redactText } from './redaction';

const ID = '7d0c1f4e-8a56-4b0e-9d3a-2f1c0b9e8a11';
const OTHER = '0b5e6c2a-1d3f-4e7a-8b9c-0a1b2c3d4e5f';
const VEHICLE = '9f8e7d6c-5b4a-4321-8765-0fedcba98765';

const driver = (uuid: string, name: string) => ({
  id: uuid,
  uuid,
  company_uuid: OTHER,
  vehicle_uuid: VEHICLE,
  name,
  phone: '+31 6 1234 5678',
  email: `${name.toLowerCase()}@example.com`,
  status: 'active',
  location: { lat: 51.9, lng: 4.4 },
  vehicle: { uuid: VEHICLE, plate_number: 'AB-123-C' },
  created_at: '2025-01-02T03:04:05.000Z',
  updated_at: '2025-01-02T03:04:05.000Z',
});

const redact = (value: unknown) => JSON.parse(redactText(new Redaction(ID), JSON.stringify(value), true));

describe('erasing a record from a stored payload', () => {
  it("erases the event's own record, keeping ids, times, embedded records and the names of changed fields", () => {
    const event = {
      id: 'evt_0abc',
      event: 'driver.updated',
      created_at: '2025-01-02T03:04:05.000Z',
      data: {
        ...driver(ID, 'Ann'),
        additionalData: { changes: { name: ['Anne', 'Ann'], vehicle_uuid: [null, VEHICLE] } },
      },
    };
    expect(redact(event)).toEqual({
      id: 'evt_0abc',
      event: 'driver.updated',
      created_at: '2025-01-02T03:04:05.000Z',
      data: {
        id: ID,
        uuid: ID,
        company_uuid: OTHER,
        vehicle_uuid: VEHICLE,
        name: ERASED,
        phone: ERASED,
        email: ERASED,
        status: ERASED,
        location: ERASED,
        vehicle: { uuid: VEHICLE, plate_number: 'AB-123-C' },
        created_at: '2025-01-02T03:04:05.000Z',
        updated_at: '2025-01-02T03:04:05.000Z',
        additionalData: { changes: { name: [ERASED, ERASED], vehicle_uuid: [null, VEHICLE] } },
      },
    });
  });

  it('erases the record embedded in another (one object or an item of a list), not the others', () => {
    const order = { id: OTHER, uuid: OTHER, reference: 'R-1', driver: driver(ID, 'Ann'), additionalData: {} };
    const redacted = redact({ id: 'evt_1', event: 'order.created', data: order });
    expect(redacted.data.reference).toBe('R-1');
    expect(redacted.data.driver).toMatchObject({ uuid: ID, name: ERASED, phone: ERASED, email: ERASED });
    const list = redact({ data: { uuid: OTHER, drivers: [driver(OTHER, 'Bob'), driver(ID, 'Ann')] } });
    expect(list.data.drivers[0]).toEqual(driver(OTHER, 'Bob'));
    expect(list.data.drivers[1].name).toBe(ERASED);
  });

  it('returns the same text when the payload holds nothing of the record, or was erased already', () => {
    const untouched = JSON.stringify({ data: driver(OTHER, 'Bob') });
    expect(redactText(new Redaction(ID), untouched, true)).toBe(untouched);
    const once = redactText(new Redaction(ID), JSON.stringify({ data: driver(ID, 'Ann') }), true);
    expect(redactText(new Redaction(ID), once, true)).toBe(once);
  });

  it('scrubs the erased strings from text that is not JSON', () => {
    const redaction = new Redaction(ID);
    redactText(redaction, JSON.stringify({ data: driver(ID, 'Ann') }), true);
    expect(redactText(redaction, 'bad driver Ann ann@example.com +31 6 1234 5678', false)).toBe(
      `bad driver ${ERASED} ${ERASED} ${ERASED}`,
    );
  });
});
