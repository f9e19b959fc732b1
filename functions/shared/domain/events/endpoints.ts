import {
  changeEndpoint,
  createEndpoint,
  deleteEndpoint,
  type EndpointChange,
  EndpointChangedError,
  EndpointLimitReachedError,
  getEndpoint,
  listEndpoints,
  type WebhookEndpointRecord,
} from '../../data/webhook-endpoints';
import { env } from '../../env';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { ulid } from '../../ids';
import { dynadataTypeFilterTakes, subscriptionTakes } from '../../types/events';
import { companyLimits } from '../company-limits';
import { newWebhookSecret, normalizedOutboundUrl, webhookUrlProblem } from '../messages/webhooks';
import { MAX_LIST_PAGE, type PageRequest, pageById } from '../pages';

/**
 * Webhook endpoints as the API consumer manages them. Decisions where the spec is silent:
 * - The URL follows the webhook address rules of message delivery (`webhookUrlProblem`), checked when the
 *   endpoint is created and again, with every resolved address, at each delivery.
 * - `events` is a set: duplicates are dropped; `*` alone stands for every type (with others it still does).
 * - The signing secret is answered once, by the creation; it signs every delivery of the endpoint.
 * - The plan's `webhookEndpoints` caps the endpoints of a company (403 `webhook_endpoint_limit_reached`).
 * - A change (`PATCH`) replaces the members it gives (JSON merge: `description: null` removes it) and checks
 *   a new URL as the creation does; `enabled: true` re-enables a disabled endpoint with a clean failure record.
 * - A rotation answers the new secret once; the previous one signs beside it for the overlap (both
 *   signatures in `webhook-signature`), then no more. A second rotation drops the secret before the previous.
 */
export const newEndpointId = () => `we_${ulid()}`;
const ENDPOINT_ID_PATTERN = /^we_[0-9a-z]{1,64}$/;

/** Why a URL is refused as a webhook endpoint, or undefined: the one check shared with message delivery. */
export const endpointUrlProblem = (url: string): string | undefined => webhookUrlProblem(url, env().outbound);

/** The URL as stored, or 400 `validation_failed` at `/body/url`: the one check of creation and change. */
const acceptedEndpointUrl = (url: string): string => {
  const problem = endpointUrlProblem(url);
  if (problem) throw new ValidationError([{ pointer: '/body/url', message: problem }]);
  return normalizedOutboundUrl(url);
};

export const toPublicEndpoint = (e: WebhookEndpointRecord) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  dynadataTypes: e.dynadataTypes ?? null,
  description: e.description ?? null,
  status: e.status,
  disabledReason: e.disabledReason ?? null,
  disabledAt: e.disabledAt ?? null,
  failingSince: e.failingSince ?? null,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** True when the endpoint receives events of `type` (`ping` goes only to the endpoint tested). */
export const subscribes = (
  endpoint: Pick<WebhookEndpointRecord, 'events' | 'dynadataTypes'>,
  event: { type: string; data: unknown },
): boolean =>
  event.type !== 'ping' &&
  subscriptionTakes(endpoint.events, event.type) &&
  dynadataTypeFilterTakes(endpoint.dynadataTypes, event);

export const registerEndpoint = async (
  companyId: string,
  body: {
    url: string;
    events: string[];
    dynadataTypes?: string[] | undefined;
    description?: string | undefined;
  },
  now: Date,
) => {
  const url = acceptedEndpointUrl(body.url);
  const limits = await companyLimits(companyId);
  const record: WebhookEndpointRecord = {
    id: newEndpointId(),
    companyId,
    url,
    events: [...new Set(body.events)],
    ...(body.dynadataTypes === undefined ? {} : { dynadataTypes: [...new Set(body.dynadataTypes)] }),
    ...(body.description !== undefined ? { description: body.description } : {}),
    secret: newWebhookSecret(),
    status: 'enabled',
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  try {
    await createEndpoint(record, limits.webhookEndpoints);
  } catch (error) {
    if (error instanceof EndpointLimitReachedError) {
      throw new AppError(
        'webhook_endpoint_limit_reached',
        `The plan allows ${limits.webhookEndpoints} webhook endpoints; delete one first.`,
        { extensions: { limit: limits.webhookEndpoints } },
      );
    }
    throw error;
  }
  return { endpoint: toPublicEndpoint(record), secret: record.secret };
};

export const findEndpoint = async (companyId: string, endpointId: string): Promise<WebhookEndpointRecord> => {
  const endpoint = await getEndpoint(companyId, endpointId);
  if (!endpoint) throw new NotFoundError('No webhook endpoint with this id.');
  return endpoint;
};

/** A page of the company's endpoints, by id (at most the plan's `webhookEndpoints` exist). */
export const endpointsOf = async (companyId: string, request: PageRequest) => {
  const { page, nextCursor } = pageById(await listEndpoints(companyId), (e) => e.id, request, {
    defaultLimit: MAX_LIST_PAGE,
    idPattern: ENDPOINT_ID_PATTERN,
  });
  return { endpoints: page.map(toPublicEndpoint), nextCursor };
};

/** 412 `precondition_failed` unless `ifMatch` (when given) is the tag of the endpoint's GET answer. */
const checkIfMatch = (endpoint: WebhookEndpointRecord, ifMatch: string | undefined): void => {
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, etagOf({ endpoint: toPublicEndpoint(endpoint) })))
    throw new AppError('precondition_failed', 'The webhook endpoint does not match If-Match; read it again.');
};

/** What `PATCH /v1/webhooks/{id}` takes: the members to replace (`description: null` removes it). */
export interface EndpointSettings {
  url?: string | undefined;
  events?: string[] | undefined;
  dynadataTypes?: string[] | null | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
}

/** The change of the stored endpoint that `settings` ask for; undefined when they change nothing. */
export const endpointSettingsChange = (
  endpoint: WebhookEndpointRecord,
  settings: EndpointSettings,
  now: Date,
): EndpointChange | undefined => {
  const set: NonNullable<EndpointChange['set']> = {};
  const remove: (keyof WebhookEndpointRecord)[] = [];
  if (settings.url !== undefined) set.url = acceptedEndpointUrl(settings.url);
  if (settings.events !== undefined) set.events = [...new Set(settings.events)];
  if (settings.dynadataTypes === null) remove.push('dynadataTypes');
  else if (settings.dynadataTypes !== undefined) set.dynadataTypes = [...new Set(settings.dynadataTypes)];
  if (settings.description === null) remove.push('description');
  else if (settings.description !== undefined) set.description = settings.description;
  if (settings.enabled === true && endpoint.status === 'disabled') {
    set.status = 'enabled';
    remove.push('disabledReason', 'disabledAt', 'failingSince', 'failingMs', 'lastFailedAt');
  } else if (settings.enabled === false && endpoint.status === 'enabled') {
    Object.assign(set, {
      status: 'disabled',
      disabledReason: 'Disabled through the API.',
      disabledAt: now.toISOString(),
    });
  }
  if (Object.keys(set).length === 0 && remove.length === 0) return undefined;
  return { set: { ...set, updatedAt: now.toISOString() }, remove };
};

/**
 * Changes an endpoint's settings; with `ifMatch`, only while it is still the endpoint whose GET answer carried
 * that tag (checked again by the write: a change in between answers 412 too).
 */
export const changeEndpointSettings = async (
  companyId: string,
  endpointId: string,
  settings: EndpointSettings,
  now: Date,
  ifMatch?: string,
) => {
  const current = await findEndpoint(companyId, endpointId);
  checkIfMatch(current, ifMatch);
  const change = endpointSettingsChange(current, settings, now);
  if (!change) return { endpoint: toPublicEndpoint(current) };
  try {
    const expected: Record<string, string> = ifMatch === undefined ? {} : { updatedAt: current.updatedAt };
    const changed = await changeEndpoint(companyId, endpointId, change, expected);
    if (!changed) throw new NotFoundError('No webhook endpoint with this id.');
    return { endpoint: toPublicEndpoint(changed) };
  } catch (error) {
    if (error instanceof EndpointChangedError)
      throw new AppError('precondition_failed', 'The webhook endpoint changed meanwhile; read it again.');
    throw error;
  }
};

/**
 * A new signing secret for the endpoint, answered once; the current one keeps signing beside it for
 * `overlapSeconds` (none with 0). A concurrent rotation is not lost: the write expects the secret it read.
 */
export const rotateEndpointSecret = async (
  companyId: string,
  endpointId: string,
  overlapSeconds: number,
  now: Date,
) => {
  for (let tries = 1; ; tries++) {
    const current = await findEndpoint(companyId, endpointId);
    const secret = newWebhookSecret();
    const until = overlapSeconds > 0 ? new Date(now.getTime() + overlapSeconds * 1000).toISOString() : null;
    const change: EndpointChange = until
      ? {
          set: {
            secret,
            previousSecret: current.secret,
            previousSecretExpiresAt: until,
            updatedAt: now.toISOString(),
          },
        }
      : {
          set: { secret, updatedAt: now.toISOString() },
          remove: ['previousSecret', 'previousSecretExpiresAt'],
        };
    try {
      const rotated = await changeEndpoint(companyId, endpointId, change, { secret: current.secret });
      if (!rotated) throw new NotFoundError('No webhook endpoint with this id.');
      return { endpoint: toPublicEndpoint(rotated), secret, previousSecretExpiresAt: until };
    } catch (error) {
      if (!(error instanceof EndpointChangedError) || tries >= 3) throw error;
    }
  }
};

/**
 * Deletes an endpoint; with `ifMatch` (the `If-Match` header), only while it is still the endpoint whose
 * `GET /v1/webhooks/{id}` answer carried that tag.
 */
export const removeEndpoint = async (
  companyId: string,
  endpointId: string,
  ifMatch?: string,
): Promise<void> => {
  if (ifMatch !== undefined) checkIfMatch(await findEndpoint(companyId, endpointId), ifMatch);
  if (!(await deleteEndpoint(companyId, endpointId)))
    throw new NotFoundError('No webhook endpoint with this id.');
};
