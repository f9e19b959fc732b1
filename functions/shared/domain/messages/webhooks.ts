import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

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

export const classifyAddress = (address: string): AddressClass => {
  const family = isIP(address);
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
  if (family === 6) {
    const lower = address.toLowerCase();
    if (lower === '::1') return 'loopback';
    if (lower === '::') return 'refused';
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped?.[1]) return classifyAddress(mapped[1]);
    if (/^f[cd]/.test(lower) || /^fe[89ab]/.test(lower) || /^ff/.test(lower)) return 'refused';
    return 'public';
  }
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
