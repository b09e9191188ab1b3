import { JsonText, underKey } from './json-text';

describe('JsonText', () => {
  it('is the whole document, and its bytes the document’s UTF-8, multi-byte characters included', () => {
    const record = '{"name":"Quai d’Orsay 🚢","city":"Zürich"}';
    const text = underKey('warehouse', record);
    const whole = `{"warehouse":${record}}`;
    expect(text.text).toBe(whole);
    expect(text.bytes().equals(Buffer.from(whole))).toBe(true);
    expect(text.value()).toEqual({ warehouse: { name: 'Quai d’Orsay 🚢', city: 'Zürich' } });
    expect(JSON.stringify({ data: text })).toBe(`{"data":${whole}}`);
  });

  it('is one document however it is split, and empty parts add nothing', () => {
    const split = new JsonText('{"warehouses":', '[1,', '', '2]', ',"meta":{}}');
    expect(split.text).toBe('{"warehouses":[1,2],"meta":{}}');
    expect(split.bytes().toString()).toBe(split.text);
  });
});
