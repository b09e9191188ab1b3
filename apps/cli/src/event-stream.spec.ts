import { EventParser } from './event-stream';

describe('EventParser (Server-Sent Events)', () => {
  it('gives whole events however the text is split, with the last id, and skips comments', () => {
    const parser = new EventParser();
    const text =
      'retry: 1000\n\n:\n\nid: 1-0\nevent: delivery\ndata: {"a":\ndata: 1}\n\nid: 2-0\r\nevent: delivery\r\ndata: x\r\n\r\n';
    const events = [...text].flatMap((char) => parser.push(char));
    expect(events).toEqual([
      { id: '1-0', event: 'delivery', data: '{"a":\n1}' },
      { id: '2-0', event: 'delivery', data: 'x' },
    ]);
  });

  it('keeps the id for events without one, names an unnamed event "message", and waits for the blank line', () => {
    const parser = new EventParser();
    expect(parser.push('id: 7-1\ndata: a\n\ndata:b\n')).toEqual([{ id: '7-1', event: 'message', data: 'a' }]);
    expect(parser.push('\n')).toEqual([{ id: '7-1', event: 'message', data: 'b' }]);
  });
});
