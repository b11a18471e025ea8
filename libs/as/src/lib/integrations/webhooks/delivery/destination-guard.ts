import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';

/**
 * The SSRF guard: whether a webhook may connect to `address`. Only global unicast addresses are
 * allowed; loopback, private (RFC 1918), link-local (cloud metadata at 169.254.169.254), unique
 * local, CGNAT, unspecified, multicast, broadcast and reserved ranges are refused, also when
 * written as IPv4-mapped IPv6 (`::ffff:127.0.0.1`).
 */
export function isAllowedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() === 'unicast';
}

/** Thrown at connect time for a refused destination (its `address` is the one refused). */
export class ForbiddenDestinationError extends Error {
  readonly code = 'ERR_FORBIDDEN_DESTINATION';
  constructor(readonly address: string) {
    super(`destination address ${address} is not allowed`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup` keeping only allowed addresses: used by the socket itself, so the address checked
 * is the one connected to (a name that re-resolves to a private address later cannot slip through).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => isAllowedAddress(a.address));
    if (allowed.length === 0) return callback(new ForbiddenDestinationError(addresses[0]?.address ?? hostname), []);
    if (options.all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}

/**
 * An undici connector that applies the guard: IP-literal hosts (which sockets never look up) are
 * checked here, names through `guardedLookup`.
 */
export function guardedConnector(options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const connect = buildConnector({ ...options, lookup: guardedLookup } as buildConnector.BuildOptions);
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0 && !isAllowedAddress(host)) return callback(new ForbiddenDestinationError(host), null);
    return connect(opts, callback);
  };
}
