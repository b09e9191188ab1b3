import { request } from 'undici';
import { BlockedTargetError, createGuardedDispatcher } from './guarded-dispatcher';

/** A connector that must never be reached: the refusal happens before any socket exists. */
function forbiddenConnect() {
  return jest.fn((_options: unknown, callback: (error: Error | null, socket: null) => void) =>
    callback(new Error('a connection was attempted'), null),
  );
}

async function refusal(url: string, resolve?: (host: string) => string[]) {
  const connect = forbiddenConnect();
  const dispatcher = createGuardedDispatcher({
    allowPrivate: false,
    restrictPorts: true,
    timeoutMs: 1000,
    connect: connect as never,
    resolve: resolve
      ? (host, cb) =>
          cb(
            null,
            resolve(host).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
          )
      : undefined,
  });
  const error = await request(url, { dispatcher, method: 'POST', body: '{}' }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  await dispatcher.close();
  return { error, connect };
}

describe('guarded dispatcher (connect-time target policy)', () => {
  it.each([
    'http://127.0.0.1:9/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest',
    'http://[::1]:9/hook',
    'http://[::ffff:127.0.0.1]:9/hook',
    'http://0x7f000001:9/hook',
    'http://2130706433:9/hook',
    'http://017700000001:9/hook',
    'http://[::ffff:0:127.0.0.1]:8080/hook',
    'http://[64:ff9b:1::a00:1]:8080/hook',
    'http://[2001::1]:8080/hook',
    'http://[2002:a00:1::1]:8080/hook',
  ])('refuses %s without opening a connection', async (url) => {
    const { error, connect } = await refusal(url);
    expect(error).toBeInstanceOf(BlockedTargetError);
    expect(connect).not.toHaveBeenCalled();
  });

  it.each([
    ['https://localhost./x', /loopback host name/],
    ['https://ip6-localhost/x', /loopback host name/],
    ['https://db.internal/x', /private-use host name/],
    ['https://printer.local/x', /private-use host name/],
    ['https://nas.home.arpa/x', /private-use host name/],
    ['https://intranet/x', /single-label/],
    ['https://hooks.example.com:22/x', /port 22/],
  ])('refuses %s by its name or port before resolving or connecting', async (url, reason) => {
    const resolve = jest.fn(() => ['93.184.216.34']);
    const { error, connect } = await refusal(url, resolve);
    expect(error).toBeInstanceOf(BlockedTargetError);
    expect(error?.message).toMatch(reason);
    expect(resolve).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses a host name whose resolver returns a private address (DNS rebinding), before connecting', async () => {
    const { error, connect } = await refusal('https://hooks.example.com/x', () => [
      '93.184.216.34',
      '10.1.2.3',
    ]);
    expect(error).toBeInstanceOf(BlockedTargetError);
    expect(error?.message).toMatch(/hooks\.example\.com resolves to private address 10\.1\.2\.3/);
    expect(connect).not.toHaveBeenCalled();
  });

  it('dials the checked public address, keeping the host name for TLS', async () => {
    const connect = forbiddenConnect();
    const dispatcher = createGuardedDispatcher({
      allowPrivate: false,
      timeoutMs: 1000,
      connect: connect as never,
      resolve: (_host, cb) => cb(null, [{ address: '93.184.216.34', family: 4 }]),
    });
    await request('https://hooks.example.com/x', { dispatcher }).catch(() => undefined);
    await dispatcher.close();
    expect(connect).toHaveBeenCalledWith(
      expect.objectContaining({ hostname: '93.184.216.34', servername: 'hooks.example.com' }),
      expect.any(Function),
    );
  });
});
