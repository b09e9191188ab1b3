import { BlockedTargetError } from '../transport/blocked-target.error';
import { brokerUrlRefusal, dialFor, parseBrokerUrl } from './broker-target';
import { BROKER_TYPES } from './destination-types';

const rabbitmq = BROKER_TYPES.get('rabbitmq')!;
const nats = BROKER_TYPES.get('nats')!;
const open = { httpsOnly: false, allowPrivate: true };
const strict = { httpsOnly: false, allowPrivate: false };
const production = { httpsOnly: true, allowPrivate: false };

describe('broker targets', () => {
  it('reads host, port (or the type default), TLS and path; refuses other schemes and credentials', () => {
    expect(parseBrokerUrl('amqp://rabbit.example.com/orders', rabbitmq)).toEqual({
      host: 'rabbit.example.com',
      port: 5672,
      tls: false,
      path: '/orders',
    });
    expect(parseBrokerUrl('amqps://rabbit.example.com:80', rabbitmq)).toMatchObject({ port: 80, tls: true });
    expect(parseBrokerUrl('tls://[2001:db8::1]:4223', nats)).toMatchObject({
      host: '2001:db8::1',
      port: 4223,
    });
    expect(parseBrokerUrl('http://rabbit.example.com', rabbitmq)).toBe(
      'only amqp:// and amqps:// URLs are allowed',
    );
    expect(parseBrokerUrl('amqp://guest:guest@rabbit.example.com', rabbitmq)).toMatch(
      /may not carry credentials/,
    );
    expect(parseBrokerUrl('amqp://user@rabbit.example.com', rabbitmq)).toMatch(/may not carry credentials/);
  });

  it.each([
    ['amqp://127.0.0.1:5672', 'loopback address 127.0.0.1'],
    ['amqp://0x7f.1', 'loopback address 127.0.0.1'],
    ['amqp://10.1.2.3', 'private address 10.1.2.3'],
    ['amqp://[::1]:5672', 'loopback address ::1'],
    ['amqp://localhost', 'loopback host name "localhost"'],
    ['amqp://rabbit.internal', 'private-use host name "rabbit.internal"'],
  ])('refuses %s when private targets are not allowed (%s)', (url, refusal) => {
    expect(brokerUrlRefusal(url, rabbitmq, strict)).toBe(refusal);
    expect(brokerUrlRefusal(url, rabbitmq, open)).toBeUndefined();
  });

  it('allows only TLS and web or unprivileged ports in production', () => {
    expect(brokerUrlRefusal('amqp://rabbit.example.com', rabbitmq, production)).toBe(
      'only amqps:// URLs are allowed',
    );
    expect(brokerUrlRefusal('amqps://rabbit.example.com:25', rabbitmq, production)).toMatch(/port 25/);
    expect(brokerUrlRefusal('amqps://rabbit.example.com', rabbitmq, production)).toBeUndefined();
  });

  it('dials the address it checked: a name resolving to a private address is refused at connect time', async () => {
    const url = parseBrokerUrl('amqp://rabbit.example.com:5673/v', rabbitmq) as Exclude<
      ReturnType<typeof parseBrokerUrl>,
      string
    >;
    const to = (address: string) => async () => [{ address, family: 4 }];
    await expect(dialFor(url, strict, to('10.9.8.7'))).rejects.toThrow(
      new BlockedTargetError('rabbit.example.com resolves to private address 10.9.8.7'),
    );
    await expect(dialFor(url, strict, to('93.184.216.34'))).resolves.toEqual({
      address: '93.184.216.34',
      host: 'rabbit.example.com',
      port: 5673,
      tls: false,
      path: '/v',
    });
    await expect(dialFor(url, open, to('10.9.8.7'))).resolves.toMatchObject({ address: '10.9.8.7' });
  });
});
