import { type EventRecord, getEvent, listEvents, putEvent } from '../../data/events';
import { listDeliveries } from '../../data/webhook-deliveries';
import { AppError, NotFoundError } from '../../errors';
import { DEFAULT_EVENTS_PAGE } from '../../types/events';
import { findEndpoint } from './endpoints';

/**
 * Events as the API consumer reads them: `{id, type, createdAt, data}`, exactly the body every delivery
 * POSTs, with the deliveries (endpoint, attempts, last status) on `GET /v1/events/{id}`.
 */
export const toPublicEvent = (e: Pick<EventRecord, 'id' | 'type' | 'createdAt' | 'data'>) => ({
  id: e.id,
  type: e.type,
  createdAt: e.createdAt,
  data: e.data,
});

export const eventPage = async (
  companyId: string,
  query: { type?: string | undefined; after?: string | undefined; limit?: string | undefined },
  now: Date,
) => {
  const page = await listEvents(companyId, {
    ...(query.type ? { type: query.type } : {}),
    ...(query.after ? { after: query.after } : {}),
    limit: query.limit ? Number(query.limit) : DEFAULT_EVENTS_PAGE,
    now,
  });
  return { events: page.events.map(toPublicEvent), next: page.next };
};

export const eventWithDeliveries = async (companyId: string, eventId: string, now: Date) => {
  const event = await getEvent(companyId, eventId, now);
  if (!event) throw new NotFoundError('No event with this id.');
  const deliveries = await listDeliveries(companyId, eventId);
  return {
    ...toPublicEvent(event),
    deliveries: deliveries.map((d) => ({
      endpointId: d.endpointId,
      status: d.status,
      attempts: d.attempts,
      lastStatus: d.lastStatus === null ? null : String(d.lastStatus),
      lastAttemptAt: d.lastAttemptAt ?? null,
      nextAttemptAt: d.nextAttemptAt ?? null,
    })),
  };
};

/** `POST /v1/webhooks/{id}/test`: a `ping` event for that endpoint only, delivered like any other. */
export const pingEndpoint = async (companyId: string, endpointId: string, now: Date) => {
  const endpoint = await findEndpoint(companyId, endpointId);
  if (endpoint.status === 'disabled') {
    throw new AppError('webhook_endpoint_disabled', `The endpoint is disabled: ${endpoint.disabledReason}`);
  }
  const event = await putEvent({
    companyId,
    type: 'ping',
    resourceId: endpointId,
    data: { endpointId, message: 'ping' },
    now,
    endpointId,
  });
  return toPublicEvent(event);
};
