import { addressRefusal, urlRefusal } from './target-policy';

const strict = { httpsOnly: true, allowPrivate: false };

describe('target policy', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'fe80::1',
    'fc00::1',
    'ff02::1',
  ])('refuses %s', (address) => {
    expect(addressRefusal(address)).toEqual(expect.any(String));
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'allows public %s',
    (address) => {
      expect(addressRefusal(address)).toBeUndefined();
    },
  );

  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://0x7f000001/hook',
    'https://2130706433/hook',
    'https://017700000001/hook',
    'https://127.1/hook',
    'https://localhost/hook',
  ])('refuses the URL %s at save time', (url) => {
    expect(urlRefusal(url, strict)).toEqual(expect.any(String));
  });

  it('refuses http:// in production and credentials and non-http schemes', () => {
    expect(urlRefusal('http://example.com/hook', strict)).toMatch(/https/);
    expect(urlRefusal('ftp://example.com/hook', { httpsOnly: false, allowPrivate: true })).toMatch(/http/);
    expect(urlRefusal('https://user:pw@example.com/', strict)).toMatch(/credentials/);
    expect(urlRefusal('not a url', strict)).toMatch(/valid URL/);
  });

  it('allows public https URLs, and private ones when the policy lifts the address rule', () => {
    expect(urlRefusal('https://example.com/hook', strict)).toBeUndefined();
    expect(
      urlRefusal('http://127.0.0.1:4000/hook', { httpsOnly: false, allowPrivate: true }),
    ).toBeUndefined();
  });
});
