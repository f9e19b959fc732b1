import { type EventRecord, getEvent, listEvents, putEvent } from '../../data/events';
import { type DeliveryRecord, listDeliveries } from '../../data/webhook-deliveries';
import { listEndpointDeliveries, requeueDelivery } from '../../data/webhook-delivery-log';
import { listEndpoints, type WebhookEndpointRecord } from '../../data/webhook-endpoints';
import { AppError, NotFoundError } from '../../errors';
import { DEFAULT_DELIVERIES_PAGE, DEFAULT_EVENTS_PAGE, type EventType } from '../../types/events';
import { listCursor, type PageRequest } from '../pages';
import { sendDelivery } from './delivery-queue';
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

const findEvent = async (companyId: string, eventId: string, now: Date): Promise<EventRecord> => {
  const event = await getEvent(companyId, eventId, now);
  if (!event) throw new NotFoundError('No event with this id.');
  return event;
};

/** The members every view of a delivery shows: its state and its last answer. */
const deliveryState = (d: DeliveryRecord) => ({
  status: d.status,
  attempts: d.attempts,
  lastStatus: d.lastStatus === null ? null : String(d.lastStatus),
  lastAttemptAt: d.lastAttemptAt ?? null,
  nextAttemptAt: d.nextAttemptAt ?? null,
});

export const eventWithDeliveries = async (companyId: string, eventId: string, now: Date) => {
  const event = await findEvent(companyId, eventId, now);
  const deliveries = await listDeliveries(companyId, eventId);
  return {
    ...toPublicEvent(event),
    deliveries: deliveries.map((d) => ({ endpointId: d.endpointId, ...deliveryState(d) })),
  };
};

/** `GET /v1/webhooks/{id}/deliveries`: a page of the endpoint's deliveries, newest event first. */
export const endpointDeliveryPage = async (companyId: string, endpointId: string, request: PageRequest) => {
  await findEndpoint(companyId, endpointId);
  const before = listCursor(request.cursor, EVENT_CURSOR);
  const page = await listEndpointDeliveries(companyId, endpointId, {
    limit: request.limit ?? DEFAULT_DELIVERIES_PAGE,
    ...(before ? { before } : {}),
  });
  return {
    deliveries: page.deliveries.map((d) => ({
      eventId: d.eventId,
      eventType: (d.eventType ?? null) as EventType | null,
      ...deliveryState(d),
      lastDurationMs: d.lastDurationMs ?? null,
    })),
    nextCursor: page.next ?? null,
  };
};

/**
 * `POST /v1/events/{id}/redeliver`: the event sent again, with the same `webhook-id`, to one endpoint of the
 * company (enabled, subscribed or not) or to every enabled endpoint it was sent to. Each delivery starts
 * anew (attempts, retry window), its message sent to its group (after the group's queued messages); one
 * still pending is left as it is.
 */
export const redeliverEvent = async (
  companyId: string,
  eventId: string,
  endpointId: string | undefined,
  now: Date,
) => {
  const event = await findEvent(companyId, eventId, now);
  let targets: WebhookEndpointRecord[];
  if (endpointId !== undefined) {
    const endpoint = await findEndpoint(companyId, endpointId);
    if (endpoint.status === 'disabled') {
      throw new AppError('webhook_endpoint_disabled', `The endpoint is disabled: ${endpoint.disabledReason}`);
    }
    targets = [endpoint];
  } else {
    const sentTo = new Set((await listDeliveries(companyId, eventId)).map((d) => d.endpointId));
    targets = (await listEndpoints(companyId)).filter((e) => sentTo.has(e.id) && e.status === 'enabled');
  }
  for (const endpoint of targets) {
    const target = { companyId, endpointId: endpoint.id, resourceId: event.resourceId };
    const { round } = await requeueDelivery({
      target,
      eventId,
      eventType: event.type,
      eventCreatedAt: new Date(event.createdAt),
    });
    // Sent for a delivery found pending too, named by its round: a request that stopped between its write
    // and its message completes when asked again; one whose message was sent is de-duplicated by the queue
    // (within 5 minutes; a later copy finds the delivery ended behind it, or sends it once).
    await sendDelivery({ ...target, eventId, round });
  }
  return eventWithDeliveries(companyId, eventId, now);
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
