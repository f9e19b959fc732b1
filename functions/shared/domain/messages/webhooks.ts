import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/**
 * Webhook endpoints and their signatures.
 *
 * URL rules: `https` only; in the local stack, and only there, `http` to a loopback address is accepted too
 * (so a test receiver can run on the same machine). Private (RFC 1918, unique local, CGNAT), link-local
 * (including the cloud metadata address 169.254.169.254), unspecified, multicast and, outside the local
 * stack, loopback addresses are refused, both when the URL is set (literal addresses) and at each delivery
 * (every address the host name resolves to). No credentials in the URL; redirects are not followed.
 *
 * Signing follows Standard Webhooks (standardwebhooks.com): headers `webhook-id` (the message id, stable
 * across retries), `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>` of
 * `<id>.<timestamp>.<body>`, keyed with the base64-decoded part of the secret `whsec_<base64>`.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

const secretBytes = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export const signWebhook = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/** Verifies a `webhook-signature` header (any of its space-separated `v1,` signatures) within a tolerance. */
export const verifyWebhook = (
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean => {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhook(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
};

const v4Parts = (address: string): number[] => address.split('.').map(Number);

type AddressClass = 'public' | 'loopback' | 'refused';

/** The 16 bytes of an IPv6 address (a zone `%eth0` is ignored; a trailing dotted IPv4 is accepted). */
export const ipv6Bytes = (address: string): number[] | undefined => {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] && dotted[2]) {
    if (isIP(dotted[2]) !== 4) return undefined;
    tail.push(...v4Parts(dotted[2]));
    text = `${dotted[1]}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined): string[] => (part ? part.split(':') : []);
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
};

const zeros = (bytes: number[], from: number, to: number): boolean =>
  bytes.slice(from, to).every((b) => b === 0);

const v4At = (bytes: number[], at: number): string => bytes.slice(at, at + 4).join('.');

/**
 * IPv6 addresses are classed on their 16 bytes, whatever their spelling. Forms that carry an IPv4 address
 * (IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96`, IPv4-compatible `::/96`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are classed as the IPv4 address they carry. Unique local `fc00::/7`,
 * link-local `fe80::/10`, the deprecated site-local `fec0::/10` and multicast `ff00::/8` are refused.
 */
const classifyIpv6 = (address: string): AddressClass => {
  const bytes = ipv6Bytes(address);
  if (!bytes) return 'refused';
  const [b0 = 0, b1 = 0] = bytes;
  if (zeros(bytes, 0, 15)) return bytes[15] === 1 ? 'loopback' : 'refused';
  if (zeros(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff)
    return classifyAddress(v4At(bytes, 12));
  if (zeros(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(bytes, 10, 12))
    return classifyAddress(v4At(bytes, 12));
  if (zeros(bytes, 0, 12)) return classifyAddress(v4At(bytes, 12));
  if (b0 === 0 && b1 === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes, 4, 12))
    return classifyAddress(v4At(bytes, 12));
  if (b0 === 0x20 && b1 === 0x02) return classifyAddress(v4At(bytes, 2));
  if ((b0 & 0xfe) === 0xfc) return 'refused';
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return 'refused';
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return 'refused';
  if (b0 === 0xff) return 'refused';
  return 'public';
};

export const classifyAddress = (address: string): AddressClass => {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) {
    const [a = 0, b = 0] = v4Parts(address);
    if (a === 127) return 'loopback';
    if (a === 0 || a === 10 || a >= 224) return 'refused';
    if (a === 169 && b === 254) return 'refused';
    if (a === 172 && b >= 16 && b <= 31) return 'refused';
    if (a === 192 && b === 168) return 'refused';
    if (a === 100 && b >= 64 && b <= 127) return 'refused';
    return 'public';
  }
  if (family === 6) return classifyIpv6(address);
  return 'refused';
};

/** Why a webhook URL is refused, or undefined when it is acceptable (literal addresses checked here). */
export const webhookUrlProblem = (raw: string, allowLoopback: boolean): string | undefined => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) ? classifyAddress(host) : host === 'localhost' ? 'loopback' : undefined;
  if (literal === 'refused') return 'must not point at a private, link-local or reserved address';
  if (literal === 'loopback') {
    if (!allowLoopback) return 'must not point at a loopback address';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
    return undefined;
  }
  if (url.protocol !== 'https:') return 'must use https';
  return undefined;
};

/** Resolves the host and refuses it when any address is not public (loopback only when allowed). */
export const assertDeliverableHost = async (raw: string, allowLoopback: boolean): Promise<void> => {
  const problem = webhookUrlProblem(raw, allowLoopback);
  if (problem) throw new WebhookRejectedError(`webhook URL ${problem}`);
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === 'refused' || (kind === 'loopback' && !allowLoopback))
      throw new WebhookRejectedError('webhook host resolves to a refused address');
  }
};

/** A resolver with the shape of `dns.lookup` asked for every address. */
export type ResolveAll = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The `lookup` a webhook connection uses: it resolves the host and fails when any address is refused, so
 * the address checked is the address connected to (a host re-pointed between a check and the connection,
 * "DNS rebinding", is refused at the connection).
 */
export const guardedLookup =
  (allowLoopback: boolean, resolve: ResolveAll = dnsLookup as ResolveAll): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((a) => {
        const kind = classifyAddress(a.address);
        return kind === 'refused' || (kind === 'loopback' && !allowLoopback);
      });
      if (refused || addresses.length === 0)
        return callback(new WebhookRejectedError('webhook host resolves to a refused address'), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };

/**
 * POSTs a webhook body: the URL rules are checked, the connection resolves through `guardedLookup`,
 * redirects are not followed (a 3xx is an answer like any other) and the response body is drained.
 */
export const postWebhook = (
  raw: string,
  headers: Record<string, string>,
  body: string,
  options: { allowLoopback: boolean; timeoutMs: number; resolve?: ResolveAll },
): Promise<{ status: number }> => {
  const problem = webhookUrlProblem(raw, options.allowLoopback);
  if (problem) return Promise.reject(new WebhookRejectedError(`webhook URL ${problem}`));
  const url = new URL(raw);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(options.allowLoopback, options.resolve),
        timeout: options.timeoutMs,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
};

/** The endpoint refused the delivery for good (4xx other than 408/429, or a refused URL): no retry. */
export class WebhookRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRejectedError';
  }
}

/** The delivery may succeed later (5xx, 408, 429, timeout, network): the state machine retries. */
export class WebhookRetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRetryableError';
  }
}

/** The company has no delivery channel. */
export class NoDeliveryChannelError extends Error {
  constructor() {
    super('no delivery channel is set for the company');
    this.name = 'NoDeliveryChannelError';
  }
}
