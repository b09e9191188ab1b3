import { BlockList, isIP } from 'node:net';

/** Why a target is refused, or undefined when it is allowed. */
export type Refusal = string | undefined;

export interface TargetPolicy {
  /** Only https:// URLs (production). */
  httpsOnly: boolean;
  /** Lift the public-address rule so local receivers work (development/test). */
  allowPrivate: boolean;
}

const blocked = new BlockList();
const V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];
const reasons = new Map<string, BlockList>();
for (const [network, prefix, reason] of V4) add(network, prefix, 'ipv4', reason);
for (const [network, prefix, reason] of V6) add(network, prefix, 'ipv6', reason);

function add(network: string, prefix: number, family: 'ipv4' | 'ipv6', reason: string) {
  blocked.addSubnet(network, prefix, family);
  const list = reasons.get(reason) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  reasons.set(reason, list);
}

/** The 16 bytes of an IPv6 address (any notation Node accepts). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1].split('.').map(Number);
    text = text.slice(0, -v4[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part?: string) => (part ? part.split(':').filter(Boolean) : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right].map((g) =>
    parseInt(g, 16),
  );
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** IPv4 addresses hidden inside IPv6 forms: mapped, compatible, NAT64 and 6to4. */
function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  const dotted = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return dotted(12); // ::ffff:a.b.c.d
  if (zero(0, 12) && !zero(12, 14)) return dotted(12); // ::a.b.c.d (deprecated compatible form)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(4, 12))
    return dotted(12); // 64:ff9b::/96
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dotted(2); // 2002::/16 (6to4)
  return undefined;
}

/** Why an IP address is not a public unicast address, or undefined when it is one. */
export function addressRefusal(address: string): Refusal {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 0) return `not an IP address: ${address}`;
  if (family === 6) {
    const inner = embeddedIpv4(ip);
    if (inner) {
      const reason = addressRefusal(inner);
      if (reason) return reason;
    }
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!blocked.check(ip, type)) return undefined;
  for (const [reason, list] of reasons) if (list.check(ip, type)) return `${reason} address ${ip}`;
  return `non-public address ${ip}`;
}

/** Checks a URL when it is saved: scheme, credentials, and the host when it is an IP literal in any notation. */
export function urlRefusal(raw: string, policy: TargetPolicy): Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:' && (policy.httpsOnly || url.protocol !== 'http:')) {
    return policy.httpsOnly ? 'only https:// URLs are allowed' : 'only http:// and https:// URLs are allowed';
  }
  if (url.username || url.password) return 'URLs may not carry credentials';
  if (policy.allowPrivate) return undefined;
  // WHATWG URL parsing already turned decimal, hex and octal hosts into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return addressRefusal(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback host name';
  return undefined;
}
