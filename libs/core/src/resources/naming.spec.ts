import { dasherize, pluralAlias, pluralPath, rootKeys } from './naming';

describe('resource naming', () => {
  it.each([
    ['warehouse', 'warehouses'],
    ['warehouse-section', 'warehouse-sections'],
    ['warehouse-dock', 'warehouse-docks'],
    ['location', 'locations'],
    ['vehicle', 'vehicles'],
    ['person', 'people'],
    ['company', 'companies'],
    ['address', 'addresses'],
    ['webhook-request-log', 'webhook-request-logs'],
    ['warehouseSection', 'warehouse-sections'],
  ])('pluralises %s as %s', (singular, plural) => {
    expect(pluralPath(singular)).toBe(plural);
  });

  it('dasherizes and builds Ember REST root keys', () => {
    expect(dasherize('webhook_endpoint')).toBe('webhook-endpoint');
    expect(rootKeys('warehouse-section')).toEqual({
      singular: 'warehouse_section',
      plural: 'warehouse_sections',
    });
  });

  it('aliases the camelCase plural a stock Ember RESTAdapter requests', () => {
    expect(pluralAlias('warehouse-section')).toBe('warehouseSections');
    expect(pluralAlias('webhook-request-log')).toBe('webhookRequestLogs');
    expect(pluralAlias('warehouse')).toBeUndefined();
  });
});
