import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { lazy } from './lazy';

/**
 * Where the platform may send a request on a tenant's behalf (webhooks, workflow HTTP actions, any outbound
 * URL a tenant chooses): the one address classifier and URL check, for every feature that makes such calls.
 *
 * Addresses are classed with `ipaddr.js`, whose range tables follow the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries, plus what those tables leave out:
 * - IPv4: only `unicast` is public; `loopback` (127.0.0.0/8) is loopback; every other range (this network,
 *   private-use, shared address space, link-local, IETF protocol assignments 192.0.0.0/24 with the NAT64
 *   discovery and anycast addresses in it, documentation, benchmarking 198.18.0.0/15, AS112, AMT, the 6to4
 *   relay, multicast, reserved 240.0.0.0/4, broadcast) is refused, including entries the registry marks
 *   globally reachable: no webhook is a protocol anycast service.
 * - IPv6: a form that carries an IPv4 address is classed as that address (IPv4-mapped `::ffff:0:0/96`,
 *   IPv4-translated `::ffff:0:0:0/96`, the NAT64 well-known prefix `64:ff9b::/96`, 6to4 `2002::/16`);
 *   `::1` is loopback; otherwise only `unicast` addresses inside global unicast `2000::/3` are public, so
 *   the local-use NAT64 prefix `64:ff9b:1::/48`, Teredo and all of `2001::/23`, documentation
 *   (`2001:db8::/32`, `3fff::/20`), discard and dummy prefixes, ORCHID, SRv6 SIDs, unique-local,
 *   link-local, site-local, multicast and the deprecated IPv4-compatible `::/96` are refused.
 *
 * The URL check refuses literal addresses when a URL is accepted; `refusingLookup` classes every address a
 * host name resolves to when the connection is made, so the address checked is the address connected to
 * (a host re-pointed between a check and the connection, "DNS rebinding", is refused at the connection).
 * Loopback is accepted only where the policy allows it (the local stack started with the loopback allowance,
 * so receivers can run on the same machine), and even then never on a port of `deniedLoopbackPorts`: the
 * local stack lists there every port its own services listen on (DynamoDB Local, the S3 endpoint, the Step
 * Functions emulator, the gateway), so a tenant's request cannot reach the platform's control plane. The
 * port is checked with the address, in the URL check and at connection time alike.
 */
export type AddressClass = 'public' | 'loopback' | 'refused';

// Parsed by the first address checked (parsing compiles ipaddr's patterns), not when the module loads.
const globalUnicast = /* @__PURE__ */ lazy(() => ipaddr.IPv6.parseCIDR('2000::/3'));
const nat64WellKnown = /* @__PURE__ */ lazy(() => ipaddr.IPv6.parseCIDR('64:ff9b::/96'));

const classifyIpv4 = (address: ipaddr.IPv4): AddressClass => {
  const range = address.range();
  if (range === 'unicast') return 'public';
  return range === 'loopback' ? 'loopback' : 'refused';
};

/** The IPv4 address an IPv6 address carries, for the forms that are routed to it. */
const carriedIpv4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const range = address.range();
  const bytes = address.toByteArray();
  if (
    range === 'ipv4Mapped' ||
    range === 'rfc6145' ||
    (range === 'rfc6052' && address.match(nat64WellKnown()))
  )
    return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
};

const classifyIpv6 = (address: ipaddr.IPv6): AddressClass => {
  const carried = carriedIpv4(address);
  if (carried) return classifyIpv4(carried);
  const range = address.range();
  if (range === 'loopback') return 'loopback';
  return range === 'unicast' && address.match(globalUnicast()) ? 'public' : 'refused';
};

/** Classes a textual address (dotted-quad IPv4 or IPv6, a zone `%eth0` ignored); anything else is refused. */
export const classifyAddress = (text: string): AddressClass => {
  const bare = text.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'refused';
  const address = ipaddr.parse(bare);
  return family === 4 ? classifyIpv4(address as ipaddr.IPv4) : classifyIpv6(address as ipaddr.IPv6);
};

/**
 * What an outbound request may reach besides public unicast addresses: the deployment's setting (`env().outbound`).
 * On AWS loopback is never allowed; the local stack allows it when started with the allowance, and lists the
 * ports of its own services as denied.
 */
export interface OutboundPolicy {
  allowLoopback: boolean;
  /** Loopback ports refused even when loopback is allowed. */
  deniedLoopbackPorts?: readonly number[];
}

/** The port a URL connects to: its own, else its scheme's default. */
export const portOf = (url: URL): number =>
  url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;

const loopbackPortProblem = (port: number, policy: OutboundPolicy): string | undefined => {
  if (!policy.allowLoopback) return 'must not point at a loopback address';
  if (policy.deniedLoopbackPorts?.includes(port))
    return `must not point at loopback port ${port}: it belongs to the platform's own services`;
  return undefined;
};

const allowed = (kind: AddressClass, port: number, policy: OutboundPolicy): boolean =>
  kind === 'public' || (kind === 'loopback' && loopbackPortProblem(port, policy) === undefined);

/** Control characters (C0, DEL, C1) and every kind of white space, none of which a URL may hold as written. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose.
const NOT_IN_A_URL = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/u;
/** `scheme://` then a host: `https:///x` has an empty host (the URL parser would quietly take `x`). */
const WITH_A_HOST = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]/i;

/**
 * What the URL parser would quietly repair and a tenant must write right instead: control characters and
 * white space anywhere (a CR/LF would otherwise reach a stored URL), backslashes, an empty host, userinfo
 * (even an empty `@`) and a fragment (never sent to a server).
 */
const writtenUrlProblem = (raw: string): string | undefined => {
  if (NOT_IN_A_URL.test(raw)) return 'must not contain white space or control characters';
  if (raw.includes('\\')) return 'must not contain a backslash';
  if (!WITH_A_HOST.test(raw)) return 'must name a host after the scheme (scheme://host/…)';
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return 'must not carry credentials';
  if (raw.includes('#')) return 'must not carry a fragment';
  return undefined;
};

/**
 * The form an accepted outbound URL is stored and answered in: the parser's serialization (`URL.href`), so
 * what a tenant reads back is what is called.
 */
export const normalizedOutboundUrl = (raw: string): string => new URL(raw).href;

/**
 * Why an outbound URL is refused, or undefined when it is acceptable. `https` only (and, when loopback is
 * allowed, `http` to loopback on a port that is not denied); no credentials in the URL; a literal address
 * must be allowed. Host names are checked again at connection time (`refusingLookup`).
 */
export const outboundUrlProblem = (raw: string, policy: OutboundPolicy): string | undefined => {
  const written = writtenUrlProblem(raw);
  if (written) return written;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.port === '0') return 'must not use port 0';
  // WHATWG URL parsing already turns hex, octal and integer IPv4 spellings into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) ? classifyAddress(host) : host === 'localhost' ? 'loopback' : undefined;
  if (literal === 'refused') return 'must not point at a private, link-local or reserved address';
  if (literal === 'loopback') {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return policy.allowLoopback ? 'must use http or https' : 'must not point at a loopback address';
    return loopbackPortProblem(portOf(url), policy);
  }
  if (url.protocol !== 'https:') return 'must use https';
  return undefined;
};

/** Every resolved address of a host is allowed for a connection to `port` (an empty answer is not). */
export const allAddressesAllowed = (addresses: string[], port: number, policy: OutboundPolicy): boolean =>
  addresses.length > 0 && addresses.every((a) => allowed(classifyAddress(a), port, policy));

/** A resolver with the shape of `dns.lookup` asked for every address. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The `lookup` an outbound connection to `port` uses (`http.request({lookup})`): it resolves the host and
 * fails with `refusal()` when any address is not allowed, so the address checked is the address connected
 * to. Each connection builds its own (the lookup is not told the port). Redirects are never followed by the
 * callers; one that were would build a new lookup for the new URL's port.
 */
export const refusingLookup =
  (
    policy: OutboundPolicy,
    port: number,
    refusal: () => Error,
    resolve: ResolveAll = dnsLookup as ResolveAll,
  ): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      if (
        !allAddressesAllowed(
          addresses.map((a) => a.address),
          port,
          policy,
        )
      )
        return callback(refusal(), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
