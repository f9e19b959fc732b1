import { type EventRecord, getEvent, listEvents, putEvent } from '../../data/events';
import { listDeliveries } from '../../data/webhook-deliveries';
import { AppError, NotFoundError } from '../../errors';
import { DEFAULT_EVENTS_PAGE } from '../../types/events';
import { listCursor } from '../pages';
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

/** An event list cursor is the id of the last event shown; anything else is refused at its pointer. */
const EVENT_CURSOR = /^evt_[0-9a-z]{26}$/;

export const eventPage = async (
  companyId: string,
  query: {
    type?: string | undefined;
    cursor?: string | undefined;
    after?: string | undefined;
    limit?: number | undefined;
  },
  now: Date,
) => {
  const after = listCursor(query.cursor, EVENT_CURSOR) ?? query.after;
  const page = await listEvents(companyId, {
    ...(query.type ? { type: query.type } : {}),
    ...(after ? { after } : {}),
    limit: query.limit ?? DEFAULT_EVENTS_PAGE,
    now,
  });
  // `next` stays beside `nextCursor` for the clients written before the one paging rule.
  return { events: page.events.map(toPublicEvent), nextCursor: page.next, next: page.next };
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
