import {
  createEndpoint,
  deleteEndpoint,
  EndpointLimitReachedError,
  getEndpoint,
  listEndpoints,
  type WebhookEndpointRecord,
} from '../../data/webhook-endpoints';
import { env } from '../../env';
import { AppError, NotFoundError, ValidationError } from '../../errors';
import { etagOf, ifMatchHolds } from '../../etag';
import { ulid } from '../../ids';
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
 */
export const newEndpointId = () => `we_${ulid()}`;
const ENDPOINT_ID_PATTERN = /^we_[0-9a-z]{1,64}$/;

/** Why a URL is refused as a webhook endpoint, or undefined: the one check shared with message delivery. */
export const endpointUrlProblem = (url: string): string | undefined => webhookUrlProblem(url, env().outbound);

export const toPublicEndpoint = (e: WebhookEndpointRecord) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  description: e.description ?? null,
  status: e.status,
  disabledReason: e.disabledReason ?? null,
  disabledAt: e.disabledAt ?? null,
  failingSince: e.failingSince ?? null,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});

/** True when the endpoint receives events of `type` (`ping` goes only to the endpoint tested). */
export const subscribes = (endpoint: Pick<WebhookEndpointRecord, 'events'>, type: string): boolean =>
  type !== 'ping' && (endpoint.events.includes('*') || endpoint.events.includes(type));

export const registerEndpoint = async (
  companyId: string,
  body: { url: string; events: string[]; description?: string | undefined },
  now: Date,
) => {
  const problem = endpointUrlProblem(body.url);
  if (problem) throw new ValidationError([{ pointer: '/body/url', message: problem }]);
  const limits = await companyLimits(companyId);
  const record: WebhookEndpointRecord = {
    id: newEndpointId(),
    companyId,
    url: normalizedOutboundUrl(body.url),
    events: [...new Set(body.events)],
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

/**
 * Deletes an endpoint; with `ifMatch` (the `If-Match` header), only while it is still the endpoint whose
 * `GET /v1/webhooks/{id}` answer carried that tag.
 */
export const removeEndpoint = async (
  companyId: string,
  endpointId: string,
  ifMatch?: string,
): Promise<void> => {
  if (ifMatch !== undefined) {
    const current = { endpoint: toPublicEndpoint(await findEndpoint(companyId, endpointId)) };
    if (!ifMatchHolds(ifMatch, etagOf(current)))
      throw new AppError(
        'precondition_failed',
        'The webhook endpoint does not match If-Match; read it again.',
      );
  }
  if (!(await deleteEndpoint(companyId, endpointId)))
    throw new NotFoundError('No webhook endpoint with this id.');
};
