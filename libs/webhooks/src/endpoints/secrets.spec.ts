import { Webhook } from 'standardwebhooks';
import { sign } from '../transport/signature';
import { decryptSecret, encryptSecret, generateSecret } from './secrets';

describe('webhook secrets', () => {
  const appKey = Buffer.alloc(32, 3);

  it('round-trips through encryption and never stores the plain secret', () => {
    const secret = generateSecret();
    const stored = encryptSecret(secret, appKey);
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(decryptSecret(stored, appKey)).toBe(secret);
    expect(() => decryptSecret(stored, Buffer.alloc(32, 4))).toThrow();
  });

  it('signs so that the standardwebhooks package verifies, and a wrong secret does not', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ id: 'evt_1', event: 'warehouse.created' });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, 'evt_1', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });
});
