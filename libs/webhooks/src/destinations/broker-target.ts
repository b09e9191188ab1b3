import { LookupAddress, promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { BlockedTargetError } from '../transport/blocked-target.error';
import {
  Refusal,
  TargetPolicy,
  addressRefusal,
  hostNameRefusal,
  hostRefusal,
  portRefusal,
} from '../transport/target-policy';
import { BrokerType, Dial } from './destination-type';

/** A broker URL taken apart: host and port as dialled, whether TLS, and its path (vhost, database). */
export interface BrokerUrl {
  host: string;
  port: number;
  tls: boolean;
  path: string;
}

/**
 * Reads a broker URL. The host is read as a web URL reads it (so `0x7f.1` is the IPv4 address it means and
 * is judged as one); the port as written, or the type's default.
 */
export function parseBrokerUrl(raw: string, type: BrokerType): BrokerUrl | string {
  let url: URL;
  let asWeb: URL;
  try {
    url = new URL(raw);
    asWeb = new URL(raw.replace(/^[a-z][a-z0-9+.-]*:/i, 'http:'));
  } catch {
    return 'not a valid URL';
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== type.schemes.plain && scheme !== type.schemes.tls)
    return `only ${type.schemes.plain}:// and ${type.schemes.tls}:// URLs are allowed`;
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw))
    return 'URLs may not carry credentials: use the username and password fields';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw) || raw.trim() !== raw)
    return 'URLs may not contain control characters';
  if (!asWeb.hostname) return 'the URL has no host';
  return {
    host: asWeb.hostname.replace(/^\[|\]$/g, ''),
    port: url.port ? Number(url.port) : type.defaultPort,
    tls: scheme === type.schemes.tls,
    path: url.pathname,
  };
}

/** The save-time half of the target policy for a broker URL: scheme (TLS in production), port and host. */
export function brokerUrlRefusal(raw: string, type: BrokerType, policy: TargetPolicy): Refusal {
  const url = parseBrokerUrl(raw, type);
  if (typeof url === 'string') return url;
  if (policy.httpsOnly && !url.tls) return `only ${type.schemes.tls}:// URLs are allowed`;
  if (policy.httpsOnly) {
    const refusal = portRefusal(url.port);
    if (refusal) return refusal;
  }
  return policy.allowPrivate ? undefined : hostRefusal(url.host);
}

export type Lookup = (host: string) => Promise<LookupAddress[]>;
const systemLookup: Lookup = (host) => dns.lookup(host, { all: true });

/**
 * The connect-time half: resolves the host once, checks every address it has, and returns the one to dial,
 * so a name cannot resolve to a private address after the check (DNS rebinding). Throws BlockedTargetError.
 */
export async function dialFor(
  url: BrokerUrl,
  policy: TargetPolicy,
  lookup: Lookup = systemLookup,
): Promise<Dial> {
  const early = policy.allowPrivate || isIP(url.host) ? undefined : hostNameRefusal(url.host);
  if (early) throw new BlockedTargetError(early);
  const addresses = isIP(url.host) ? [{ address: url.host, family: isIP(url.host) }] : await lookup(url.host);
  if (!addresses.length) throw new Error(`${url.host} has no address`);
  if (!policy.allowPrivate)
    for (const { address } of addresses) {
      const refusal = addressRefusal(address);
      if (refusal)
        throw new BlockedTargetError(isIP(url.host) ? refusal : `${url.host} resolves to ${refusal}`);
    }
  return { address: addresses[0].address, host: url.host, port: url.port, tls: url.tls, path: url.path };
}
