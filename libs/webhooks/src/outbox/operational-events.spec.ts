import { subscribes, subscribesSql } from './operational-events';

describe('subscribes', () => {
  it('matches an event by its name, or by * unless it is operational', () => {
    expect(subscribes(['warehouse.created'], 'warehouse.created')).toBe(true);
    expect(subscribes(['warehouse.created'], 'warehouse.updated')).toBe(false);
    expect(subscribes(['*'], 'warehouse.updated')).toBe(true);
    expect(subscribes(['*'], 'endpoint.disabled')).toBe(false);
    expect(subscribes(['*', 'endpoint.disabled'], 'endpoint.disabled')).toBe(true);
  });

  it('has a SQL form over the given expressions', () => {
    expect(subscribesSql('ep.events', 'c.name', 'c.operational')).toBe(
      "(ep.events ? c.name OR ep.events ? '*' AND NOT c.operational)",
    );
  });
});
