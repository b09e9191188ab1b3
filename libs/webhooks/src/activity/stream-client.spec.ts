import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { StreamClient } from './stream-client';

/** A response that records what is written. */
function response() {
  const written: string[] = [];
  const fake = Object.assign(new EventEmitter(), {
    writableLength: 0,
    socket: null,
    write: (chunk: string) => written.push(chunk),
    end: () => written.push('<end>'),
  });
  return { written, fake: fake as unknown as ServerResponse };
}

const principal = { key: 'k', active: async () => true };

describe('StreamClient', () => {
  it('holds live events during a replay, then sends the replay first and the live ones it did not hold', () => {
    const { written, fake } = response();
    const client = new StreamClient('c', principal, fake);
    client.hold();
    client.write('live a', 'a');
    client.write('endpoint change');
    client.write('live c', 'c');
    expect(written).toEqual([]);
    client.replay([
      { chunk: 'replayed a', uuid: 'a' },
      { chunk: 'replayed b', uuid: 'b' },
    ]);
    expect(written).toEqual(['replayed a', 'replayed b', 'endpoint change', 'live c']);
    client.write('live d', 'd');
    expect(written.at(-1)).toBe('live d');
  });

  it('writes nothing once closed, and ends a client too slow to follow', () => {
    const { written, fake } = response();
    const client = new StreamClient('c', principal, fake);
    (fake as unknown as { writableLength: number }).writableLength = 2 * 1024 * 1024;
    client.write('too much');
    expect(written).toEqual(['<end>']);
    client.write('after');
    expect(written).toEqual(['<end>']);
  });

  it('does not send live a row the replay already sent', () => {
    const { written, fake } = response();
    const client = new StreamClient('c', principal, fake);
    client.hold();
    client.replay([{ chunk: 'replayed a', uuid: 'a' }]);
    client.write('live a', 'a');
    client.write('live b', 'b');
    expect(written).toEqual(['replayed a', 'live b']);
  });
});
