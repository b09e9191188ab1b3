import { ConnectionPool } from './connection-pool';
import { BrokerConnection, ok } from './destination-type';

/** A connection that only records what happens to it. */
class Recorded implements BrokerConnection {
  broken = false;
  closed = false;
  constructor(readonly name: string) {}
  async publish() {
    return ok(this.name);
  }
  async close() {
    this.closed = true;
  }
}

function opener() {
  const opened: Recorded[] = [];
  const open = (name: string) => async () => {
    const connection = new Recorded(name);
    opened.push(connection);
    return connection;
  };
  return { opened, open };
}

const publish = (connection: BrokerConnection) => connection.publish({}, {} as never);
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ConnectionPool', () => {
  it('shares one connection per key, and opens a new one on the next use after it broke', async () => {
    const pool = new ConnectionPool(10, 60_000);
    const { opened, open } = opener();
    await Promise.all([1, 2, 3].map(() => pool.use('a', open('a1'), publish)));
    expect(opened.map((c) => c.name)).toEqual(['a1']);
    opened[0].broken = true;
    await pool.use('a', open('a2'), publish);
    expect(opened.map((c) => c.name)).toEqual(['a1', 'a2']);
    await tick();
    expect(opened[0].closed).toBe(true);
    await pool.closeAll();
  });

  it('forgets a connection that failed to open: the next use tries again', async () => {
    const pool = new ConnectionPool(10, 60_000);
    const refused = () => Promise.reject(new Error('refused'));
    await expect(pool.use('a', refused, publish)).rejects.toThrow('refused');
    await tick();
    expect(pool.size).toBe(0);
    const { opened, open } = opener();
    await pool.use('a', open('a'), publish);
    expect(opened).toHaveLength(1);
    await pool.closeAll();
  });

  it('closes the least recently used past its bound, once its sends are answered', async () => {
    const pool = new ConnectionPool(2, 60_000);
    const { opened, open } = opener();
    await pool.use('a', open('a'), publish);
    await pool.use('b', open('b'), publish);
    await pool.use('a', open('a'), publish);
    let finish!: () => void;
    const held = pool.use('a', open('a'), () => new Promise<void>((resolve) => (finish = resolve)));
    await pool.use('c', open('c'), publish);
    await tick();
    expect(opened.filter((c) => c.closed).map((c) => c.name)).toEqual(['b']);
    await pool.use('d', open('d'), publish);
    await tick();
    // `a` was the least recently used: out of the pool, but its send is still in flight.
    expect(opened.find((c) => c.name === 'a')!.closed).toBe(false);
    finish();
    await held;
    await tick();
    expect(opened.filter((c) => c.closed).map((c) => c.name)).toEqual(['a', 'b']);
    expect(pool.size).toBe(2);
    await pool.closeAll();
  });

  it('closes connections idle past idleMs', async () => {
    const pool = new ConnectionPool(10, 20);
    const { opened, open } = opener();
    await pool.use('a', open('a'), publish);
    for (let i = 0; i < 100 && !opened[0].closed; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(opened[0].closed).toBe(true);
    expect(pool.size).toBe(0);
  });

  it('closeAll closes the idle ones at once and the busy ones when their sends are answered', async () => {
    const pool = new ConnectionPool(10, 60_000);
    const { opened, open } = opener();
    await pool.use('idle', open('idle'), publish);
    let finish!: () => void;
    const held = pool.use('busy', open('busy'), () => new Promise<void>((resolve) => (finish = resolve)));
    await tick();
    await pool.closeAll();
    expect(opened.map((c) => [c.name, c.closed])).toEqual([
      ['idle', true],
      ['busy', false],
    ]);
    finish();
    await held;
    await tick();
    expect(opened[1].closed).toBe(true);
  });
});
