import {
  ChannelChangedError,
  type DeliveryChannel,
  deleteDeliveryChannel,
  getDeliveryChannel,
  writeDeliveryChannel,
} from '../../data/delivery-channels';
import { env } from '../../env';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { newWebhookSecret, normalizedOutboundUrl, webhookUrlProblem } from './webhooks';

/**
 * The company's message channel, managed by the company (`/v1/messaging/channel`) and by the operator (`admin
 * channels set|get`) through these functions. Decisions where the spec is silent:
 * - The URL follows the rules of webhook endpoints (public HTTPS, checked again at each delivery).
 * - Setting the channel the first time answers 201 with its signing secret, once; changing its URL keeps the
 *   secret (200, `secret: null`), as Stripe keeps an endpoint's secret across URL changes. A lost first
 *   answer is recovered by a rotation.
 * - A rotation answers the new secret once; the previous one signs beside it for the overlap (one signature
 *   each in `webhook-signature`), as for webhook endpoints.
 * - Every change is conditional on the channel as read: `If-Match` with the tag of the GET answers 412 on a
 *   mismatch, and a change racing another answers 409 `conflict` rather than overwrite it.
 */
const NO_CHANNEL = 'The company has no message channel: set one with PUT /v1/messaging/channel.';

export const toPublicChannel = (channel: DeliveryChannel) => ({
  url: channel.url,
  createdAt: channel.createdAt ?? channel.updatedAt,
  updatedAt: channel.updatedAt,
  previousSecretExpiresAt: channel.previousSecretExpiresAt ?? null,
});

const findChannel = async (companyId: string): Promise<DeliveryChannel> => {
  const channel = await getDeliveryChannel(companyId);
  if (!channel) throw new NotFoundError(NO_CHANNEL);
  return channel;
};

export const messageChannelOf = async (companyId: string) => ({
  channel: toPublicChannel(await findChannel(companyId)),
});

/** 412 unless `ifMatch` (when given) is the tag of the GET answer of `channel` (none: it matches nothing). */
const checkIfMatch = (channel: DeliveryChannel | undefined, ifMatch: string | undefined): void => {
  if (ifMatch === undefined) return;
  if (!channel || !ifMatchHolds(ifMatch, etagOf({ channel: toPublicChannel(channel) })))
    throw new AppError('precondition_failed', 'The message channel does not match If-Match; read it again.');
};

/** Runs a conditional write, turning a concurrent change into 409 `conflict`. */
const unlessChanged = async (write: () => Promise<void>): Promise<void> => {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof ChannelChangedError)) throw error;
    throw new AppError('conflict', 'The message channel changed meanwhile; read it again.');
  }
};

/** The URL as stored, or 400 `validation_failed` at `pointer`. */
export const acceptedChannelUrl = (url: string, pointer = '/body/url'): string => {
  const problem = webhookUrlProblem(url, env().outbound);
  if (problem) throw new ValidationError([{ pointer, message: problem }]);
  return normalizedOutboundUrl(url);
};

/** Sets the channel's URL: creates the channel (with its secret, answered once) or changes the URL. */
export const setMessageChannel = async (companyId: string, rawUrl: string, now: Date, ifMatch?: string) => {
  const url = acceptedChannelUrl(rawUrl);
  const current = await getDeliveryChannel(companyId);
  checkIfMatch(current, ifMatch);
  if (!current) {
    const channel = {
      url,
      secret: newWebhookSecret(),
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    await unlessChanged(() => writeDeliveryChannel(companyId, channel, undefined));
    return { created: true, channel: toPublicChannel(channel), secret: channel.secret };
  }
  if (current.url === url) return { created: false, channel: toPublicChannel(current), secret: null };
  const changed = { ...current, url, updatedAt: now.toISOString() };
  await unlessChanged(() => writeDeliveryChannel(companyId, changed, current.updatedAt));
  return { created: false, channel: toPublicChannel(changed), secret: null };
};

/** A new signing secret, answered once; the current one keeps signing for `overlapSeconds` (none with 0). */
export const rotateMessageChannelSecret = async (companyId: string, overlapSeconds: number, now: Date) => {
  const current = await findChannel(companyId);
  const secret = newWebhookSecret();
  const until = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000).toISOString() : null;
  const { previousSecret: _previous, previousSecretExpiresAt: _until, ...rest } = current;
  const rotated: DeliveryChannel = {
    ...rest,
    secret,
    updatedAt: now.toISOString(),
    ...(until ? { previousSecret: current.secret, previousSecretExpiresAt: until } : {}),
  };
  await unlessChanged(() => writeDeliveryChannel(companyId, rotated, current.updatedAt));
  return { channel: toPublicChannel(rotated), secret, previousSecretExpiresAt: until };
};

/** Removes the channel: messages sent from then on end `failed` (`no_channel`) until one is set again. */
export const removeMessageChannel = async (companyId: string, ifMatch?: string): Promise<void> => {
  const current = await findChannel(companyId);
  checkIfMatch(current, ifMatch);
  await unlessChanged(() => deleteDeliveryChannel(companyId, current.updatedAt));
};
