import { Params } from './sql';

describe('Params', () => {
  it('numbers placeholders in the order values are added', () => {
    const params = new Params();
    expect([params.add('a'), params.fresh(() => 'b'), params.add('c')]).toEqual(['$1', '$2', '$3']);
    expect(params.values).toEqual(['a', 'b', 'c']);
  });

  it('gives a reused statement fresh values for another input and keeps the added ones', () => {
    const params = new Params({ name: 'first' });
    let made = 0;
    params.add('constant');
    params.fresh((input) => input.name);
    params.fresh(() => ++made);
    expect(params.values).toEqual(['constant', 'first', 1]);
    expect(params.valuesFor({ name: 'second' })).toEqual(['constant', 'second', 2]);
    expect(params.valuesFor({ name: 'third' })).toEqual(['constant', 'third', 3]);
  });
});
