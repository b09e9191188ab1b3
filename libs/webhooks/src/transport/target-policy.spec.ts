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
    // IPv6 forms that embed an IPv4 address, and the special-purpose ranges of the IANA registry
    '::ffff:0:127.0.0.1',
    '::ffff:0:a00:1',
    '64:ff9b:1::808:808',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2002:a00:1::1',
    '2002:808:808::1',
    '2001:db8::1',
    '2001:2::1',
    '2001:10::1',
    '2001:20::1',
    '100::1',
    '5f00::1',
    '3fff::1',
    'fec0::1',
    '4000::1',
    'fe80::1%eth0',
    // IPv4 special-purpose ranges
    '192.0.0.8',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '192.88.99.1',
    '240.0.0.1',
    '192.31.196.1',
  ])('refuses %s', (address) => {
    expect(addressRefusal(address)).toEqual(expect.any(String));
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
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
    // loopback names in every spelling URL parsing lets through
    'https://localhost./hook',
    'https://LOCALHOST./hook',
    'https://localhost../hook',
    'https://localhost%2e/hook',
    'https://localhost\u3002/hook',
    'https://localhost.localdomain/hook',
    'https://ip6-localhost/hook',
    'https://api.localhost/hook',
    'https://[::ffff:0:127.0.0.1]/hook',
    'https://[64:ff9b:1::a00:1]/hook',
    'https://[2001::1]/hook',
    'https://[2002:a00:1::1]/hook',
    // internal names
    'https://db.internal/hook',
    'https://printer.local/hook',
    'https://nas.home.arpa/hook',
    'https://intranet/hook',
    'https://intranet./hook',
    // raw text a lenient parser would rewrite
    'https://example.com\\@127.0.0.1/',
    'https://example.com\\hook',
    'https://@example.com/hook',
    'https://user@example.com/hook',
    'https://exa mple.com/hook',
    'https://example.com/ho\nok',
    // ports
    'https://example.com:22/hook',
    'https://example.com:25/hook',
    'https://example.com:1023/hook',
  ])('refuses the URL %s at save time', (url) => {
    expect(urlRefusal(url, strict)).toEqual(expect.any(String));
  });

  it('refuses http:// in production and credentials and non-http schemes', () => {
    expect(urlRefusal('http://example.com/hook', strict)).toMatch(/https/);
    expect(urlRefusal('ftp://example.com/hook', { httpsOnly: false, allowPrivate: true })).toMatch(/http/);
    expect(urlRefusal('https://user:pw@example.com/', strict)).toMatch(/credentials/);
    expect(urlRefusal('not a url', strict)).toMatch(/valid URL/);
  });

  it('names the reason', () => {
    expect(urlRefusal('https://localhost./x', strict)).toMatch(/loopback host name/);
    expect(urlRefusal('https://intranet/x', strict)).toMatch(/single-label/);
    expect(urlRefusal('https://db.internal/x', strict)).toMatch(/private-use host name/);
    expect(urlRefusal('https://example.com:22/x', strict)).toMatch(/port 22/);
    expect(urlRefusal('https://example.com\\@127.0.0.1/', strict)).toMatch(/backslash/);
    expect(urlRefusal('https://[::ffff:0:127.0.0.1]/x', strict)).toMatch(/loopback address 127\.0\.0\.1/);
    expect(urlRefusal('https://[2001::1]/x', strict)).toMatch(/teredo/);
  });

  it('quotes a host name as given, so a name ending with its root dot reads without a doubled period', () => {
    expect(urlRefusal('https://localhost./x', strict)).toBe('loopback host name "localhost."');
    expect(urlRefusal('https://db.internal./x', strict)).toBe('private-use host name "db.internal."');
    expect(urlRefusal('https://intranet./x', strict)).toBe(
      'single-label host name "intranet." (use a fully qualified name)',
    );
    expect(urlRefusal('https://a..b/x', strict)).toBe('malformed host name "a..b"');
  });

  it('allows public https URLs on 443, 80 and unprivileged ports', () => {
    for (const url of [
      'https://example.com:443/hook',
      'https://example.com:80/hook',
      'https://example.com:1024/hook',
      'https://example.com:8443/hook',
      'https://hooks.example.com./hook',
      'https://[2606:4700:4700::1111]/hook',
    ])
      expect(urlRefusal(url, strict)).toBeUndefined();
  });

  it('allows public https URLs, and private ones when the policy lifts the address rule', () => {
    expect(urlRefusal('https://example.com/hook', strict)).toBeUndefined();
    expect(urlRefusal('http://localhost:22/hook', { httpsOnly: false, allowPrivate: true })).toBeUndefined();
    expect(
      urlRefusal('http://127.0.0.1:4000/hook', { httpsOnly: false, allowPrivate: true }),
    ).toBeUndefined();
  });
});
