import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  allAddressesAllowed,
  type OutboundPolicy,
  outboundUrlProblem,
  portOf,
  type ResolveAll,
  refusingLookup,
} from '../../outbound-addresses';

/**
 * Webhook endpoints and their signatures.
 *
 * URL rules (`functions/shared/outbound-addresses.ts`, shared by every outbound feature): `https` only; in
 * the local stack started with the loopback allowance, and only there, `http` to a loopback address is
 * accepted too (so a test receiver can run on the same machine), never on a port of the stack's own services. Every address of the IANA special-purpose registries (private, shared, link-local
 * with the metadata address 169.254.169.254, documentation, benchmarking, NAT64 local-use, Teredo, ...),
 * multicast and, outside the local stack, loopback are refused, both when the URL is set (literal
 * addresses) and at each delivery (every address the host name resolves to, checked at connection time).
 * No credentials in the URL; redirects are not followed.
 *
 * Signing follows Standard Webhooks (standardwebhooks.com): headers `webhook-id` (the message id, stable
 * across retries), `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256>` of
 * `<id>.<timestamp>.<body>`, keyed with the base64-decoded part of the secret `whsec_<base64>`.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

const secretBytes = (secret: string): Buffer => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export const signWebhook = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/**
 * The secrets that sign a delivery at `now`: the current one, and the previous one during the overlap a
 * rotation left (a webhook endpoint's or the message channel's): one signature each in `webhook-signature`.
 */
export const signingSecrets = (
  signer: {
    secret: string;
    previousSecret?: string | undefined;
    previousSecretExpiresAt?: string | undefined;
  },
  now: Date,
): string[] => {
  const { secret, previousSecret, previousSecretExpiresAt } = signer;
  const overlapping =
    previousSecret !== undefined &&
    previousSecretExpiresAt !== undefined &&
    now.getTime() < Date.parse(previousSecretExpiresAt);
  return overlapping ? [secret, previousSecret] : [secret];
};

export {
  normalizedOutboundUrl,
  type OutboundPolicy,
  type ResolveAll,
} from '../../outbound-addresses';

/** Why a webhook URL is refused, or undefined when it is acceptable (literal addresses checked here). */
export const webhookUrlProblem = (raw: string, policy: OutboundPolicy): string | undefined =>
  outboundUrlProblem(raw, policy);

/** Resolves the host and refuses it when any address is not public (loopback only when allowed). */
export const assertDeliverableHost = async (raw: string, policy: OutboundPolicy): Promise<void> => {
  const problem = webhookUrlProblem(raw, policy);
  if (problem) throw new WebhookRejectedError(`webhook URL ${problem}`);
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  if (!allAddressesAllowed(addresses, portOf(url), policy))
    throw new WebhookRejectedError('webhook host resolves to a refused address');
};

/** The `lookup` of a connection to `url`: every address the host resolves to is classed when connecting. */
export const guardedLookup = (url: URL, policy: OutboundPolicy, resolve?: ResolveAll): LookupFunction =>
  refusingLookup(
    policy,
    portOf(url),
    () => new WebhookRejectedError('webhook host resolves to a refused address'),
    resolve,
  );

/**
 * POSTs a webhook body: the URL rules are checked, the connection resolves through `guardedLookup`,
 * redirects are not followed (a 3xx is an answer like any other) and the response body is drained.
 */
export const postWebhook = (
  raw: string,
  headers: Record<string, string>,
  body: string,
  options: OutboundPolicy & { timeoutMs: number; resolve?: ResolveAll },
): Promise<{ status: number }> => {
  const problem = webhookUrlProblem(raw, options);
  if (problem) return Promise.reject(new WebhookRejectedError(`webhook URL ${problem}`));
  const url = new URL(raw);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(url, options, options.resolve),
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
