import { LookupAddress, lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressRefusal, hostNameRefusal, portRefusal } from './target-policy';

import { HTTP_CONNECTIONS_PER_ORIGIN, HTTP_KEEP_ALIVE_MS } from '../tuning';
import { BlockedTargetError } from './blocked-target.error';

export { BlockedTargetError } from './blocked-target.error';

export type Resolver = (
  hostname: string,
  callback: (error: Error | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

export interface DispatcherOptions {
  allowPrivate: boolean;
  /** Only ports 80, 443 and ≥ 1024 (production). */
  restrictPorts?: boolean;
  timeoutMs: number;
  /** DNS resolution (tests inject one that returns private addresses). */
  resolve?: Resolver;
  /** The socket connector (tests wrap it to prove it is never reached for a refused address). */
  connect?: buildConnector.connector;
}

/**
 * An undici Agent that checks the port and host name, then the address it actually dials: the host is resolved once, every address
 * is checked, and the socket goes to the checked IP (TLS still verifies the certificate against the host
 * name), so DNS rebinding cannot slip a private address in after the check. Redirects are never followed.
 */
export function createGuardedDispatcher(options: DispatcherOptions): Agent {
  const resolve = options.resolve ?? systemResolver;
  const connect = options.connect ?? buildConnector({ timeout: options.timeoutMs, rejectUnauthorized: true });
  const guarded: buildConnector.connector = (connectOptions, callback) => {
    const host = connectOptions.hostname.replace(/^\[|\]$/g, '');
    const dial = (address: string) =>
      connect({ ...connectOptions, hostname: address, servername: isIP(host) ? undefined : host }, callback);
    const refuse = (address: string, via?: string) => {
      const refusal = options.allowPrivate ? undefined : addressRefusal(address);
      if (refusal) callback(new BlockedTargetError(via ? `${via} resolves to ${refusal}` : refusal), null);
      return refusal !== undefined;
    };
    // The same port and name rules as at save time, for rows saved before a rule existed.
    const port = Number(connectOptions.port) || (connectOptions.protocol === 'https:' ? 443 : 80);
    const early =
      (options.restrictPorts ? portRefusal(port) : undefined) ??
      (options.allowPrivate || isIP(host) ? undefined : hostNameRefusal(host));
    if (early) return callback(new BlockedTargetError(early), null);
    if (isIP(host)) {
      if (!refuse(host)) dial(host);
      return;
    }
    resolve(host, (error, addresses) => {
      if (error) return callback(error, null);
      if (!addresses.length) return callback(new Error(`${host} has no address`), null);
      for (const { address } of addresses) if (refuse(address, host)) return;
      dial(addresses[0].address);
    });
  };
  return new Agent({
    connect: guarded,
    connections: HTTP_CONNECTIONS_PER_ORIGIN,
    keepAliveTimeout: HTTP_KEEP_ALIVE_MS,
  });
}
