import ipaddr from 'ipaddr.js';
import type { AppConfig } from '@wharf/core';

/** Why a target is refused, or undefined when it is allowed. */
export type Refusal = string | undefined;

export interface TargetPolicy {
  /** Only https:// URLs, and only ports 80, 443 and ≥ 1024 (production). */
  httpsOnly: boolean;
  /** Lift the public-address and host-name rules so local receivers work (development/test). */
  allowPrivate: boolean;
}

/** The target policy of a process: https only in production, private targets as configured. */
export const targetPolicyOf = (config: AppConfig): TargetPolicy => ({
  httpsOnly: config.nodeEnv === 'production',
  allowPrivate: config.webhooks.allowPrivateTargets,
});

/** The ports a production target may use: the web's own, and any unprivileged one (never SSH, SMTP, …). */
export function portRefusal(port: number): Refusal {
  return port === 80 || port === 443 || port >= 1024
    ? undefined
    : `port ${port} is not allowed (use 443, 80 or a port from 1024)`;
}

/**
 * IPv6 ranges of the IANA special-purpose registry that only wrap an IPv4 address the packet really goes to:
 * those are judged by the IPv4 address inside. Every other special-purpose range is refused outright.
 */
const WRAPS_IPV4 = new Set(['ipv4Mapped', 'rfc6145']);
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
/** Global unicast (IANA IPv6 address space): anything outside 2000::/3 is not a public address. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function describeRange(range: string): string {
  return range.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

function ipv4Refusal(address: ipaddr.IPv4, shown: string): Refusal {
  const range = address.range();
  return range === 'unicast' ? undefined : `${describeRange(range)} address ${shown}`;
}

/**
 * Why an IP address is not a globally reachable unicast address, or undefined when it is one. The ranges
 * come from ipaddr.js, which follows the IANA IPv4 and IPv6 special-purpose address registries.
 */
export function addressRefusal(address: string): Refusal {
  const text = address.replace(/^\[|\]$/g, '');
  // Strict parsing: only the notations a socket would dial (URL parsing already normalised the others).
  if (
    !ipaddr.isValid(text) ||
    (text.includes('.') && !text.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(text))
  )
    return `not an IP address: ${address}`;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return ipv4Refusal(parsed as ipaddr.IPv4, text);
  const ip = parsed as ipaddr.IPv6;
  if (ip.zoneId) return `scoped address ${text}`;
  const range = ip.range();
  if (WRAPS_IPV4.has(range) || (range === 'rfc6052' && ip.match(NAT64_WELL_KNOWN))) {
    const parts = ip.toByteArray().slice(12);
    const inner = new ipaddr.IPv4(parts);
    const refusal = ipv4Refusal(inner, `${inner.toString()} (inside ${text})`);
    return refusal;
  }
  if (range !== 'unicast') return `${describeRange(range)} address ${text}`;
  if (!ip.match(GLOBAL_UNICAST)) return `reserved address ${text}`;
  return undefined;
}

/**
 * Names that never lead to a public receiver: loopback aliases, and the special-use suffixes of the IANA
 * registry (RFC 6761, 6762, 8375, 9476) plus `.internal` (reserved by ICANN for private use).
 */
const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback']);
const PRIVATE_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'home.arpa',
  'localdomain',
  'invalid',
  'test',
  'example',
  'onion',
  'alt',
  'arpa',
];

/**
 * Why a host name (not an IP literal) cannot be a public receiver. Trailing dots and letter case are
 * ignored, so `LOCALHOST.` is `localhost`; a name with an empty label is refused outright. The name is
 * quoted as given: it may end with a dot, and the sentence a refusal ends up in does too.
 */
export function hostNameRefusal(hostname: string): Refusal {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const shown = JSON.stringify(hostname);
  if (name === '' || name.split('.').some((label) => label === '')) return `malformed host name ${shown}`;
  if (LOOPBACK_NAMES.has(name) || name.endsWith('.localhost')) return `loopback host name ${shown}`;
  for (const suffix of PRIVATE_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return `private-use host name ${shown}`;
  }
  if (!name.includes('.')) return `single-label host name ${shown} (use a fully qualified name)`;
  return undefined;
}

/** Raw-text rules: what a lenient parser would silently rewrite is refused rather than stored verbatim. */
function textRefusal(raw: string): Refusal {
  if (raw.includes('\\')) return 'URLs may not contain a backslash';
  // Tabs and line breaks are silently dropped by URL parsers, leading/trailing spaces trimmed.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw.trim() !== raw)
    return 'URLs may not contain control characters or surrounding spaces';
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1];
  if (authority === undefined) return 'not a valid URL';
  if (authority.includes('@')) return 'URLs may not carry credentials';
  return undefined;
}

/**
 * Checks a URL when it is saved, when its endpoint is enabled, and before each delivery: its text, scheme,
 * port and host (IP literal in any notation, or name). The connect-time half is in the guarded dispatcher.
 */
export function urlRefusal(raw: string, policy: TargetPolicy): Refusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  const text = textRefusal(raw);
  if (text) return text;
  if (url.protocol !== 'https:' && (policy.httpsOnly || url.protocol !== 'http:')) {
    return policy.httpsOnly ? 'only https:// URLs are allowed' : 'only http:// and https:// URLs are allowed';
  }
  if (url.username || url.password) return 'URLs may not carry credentials';
  if (policy.httpsOnly && url.port !== '') {
    const refusal = portRefusal(Number(url.port));
    if (refusal) return refusal;
  }
  if (policy.allowPrivate) return undefined;
  return hostRefusal(url.hostname);
}

/**
 * The host of a parsed URL (or of a connection): an IP literal is judged by its address, a name by the name
 * rules. WHATWG URL parsing has already turned decimal, hex and octal hosts into dotted quads, percent-decoded
 * the name and mapped full-width dots (`。`) to `.`.
 */
export function hostRefusal(hostname: string): Refusal {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return addressRefusal(host);
  return hostNameRefusal(host);
}
