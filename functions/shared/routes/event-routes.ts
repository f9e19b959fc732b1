import { identifierField } from '../fields';
import { lazy } from '../lazy';
import * as z from '../zod';
import {
  deliverySchema,
  eventPageSchema,
  eventSchema,
  listEventsQuerySchema,
  redeliverBodySchema,
} from './event-schemas';
import { route } from './route-definition';

/**
 * The routes of events (group `events`, with the endpoints of `webhook-routes.ts`), a section of the route
 * table (`ROUTES` spreads it, and checks each entry against `RouteDefinition`).
 */
const eventId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Event identifier.') }));

export const EVENT_ROUTES = [
  route({
    method: 'GET',
    path: '/v1/events',
    group: 'events',
    operationId: 'listEvents',
    sdk: 'events.list',
    summary: 'List events, newest first',
    description:
      'Events of the last 30 days, newest first, `limit` per page; pass `nextCursor` as `cursor` for older ones. ' +
      'A consumer that was down catches up here.',
    tag: 'Events',
    scope: 'webhooks:read',
    get query() {
      return listEventsQuerySchema();
    },
    deprecatedQuery: { after: { since: '2026-11-25', sunset: '2027-05-31', use: 'cursor' } },
    get response() {
      return eventPageSchema();
    },
    agent: {
      tool: 'list_events',
      title: 'List events',
      description:
        'Events of the last 30 days (jobs finished, messages sent, runs ended, …), newest first, as ' +
        'GET /v1/events: what an agent reads to learn what happened since it last looked.',
      effect: 'read',
    },
  }),
  route({
    method: 'GET',
    path: '/v1/events/{id}',
    group: 'events',
    operationId: 'getEvent',
    sdk: 'events.get',
    summary: 'Fetch an event and its deliveries',
    description:
      'The event (`{id, type, createdAt, data}`, as delivered) and one delivery per subscribed endpoint: ' +
      'its status, attempts, last HTTP status and next attempt time. Kept 30 days.',
    tag: 'Events',
    scope: 'webhooks:read',
    get params() {
      return eventId();
    },
    get response() {
      return z.object({ event: eventSchema().extend({ deliveries: z.array(deliverySchema()) }) });
    },
    errors: ['not_found'],
    agent: {
      tool: 'get_event',
      title: 'Get an event',
      description: 'One event and its webhook deliveries, as GET /v1/events/{id} shows it under `event`.',
      effect: 'read',
      answer: 'event',
    },
  }),
  route({
    method: 'POST',
    path: '/v1/events/{id}/redeliver',
    group: 'events',
    operationId: 'redeliverEvent',
    sdk: 'events.redeliver',
    summary: 'Send an event again',
    description:
      'Sends the event again, with the same `webhook-id`, to `endpointId` or, without it, to every enabled ' +
      'endpoint it was sent to; each delivery starts anew (attempts, retry window), one still pending is left ' +
      'as it is. Answers the event with its deliveries, as `GET /v1/events/{id}`. A disabled endpoint answers ' +
      '409 `webhook_endpoint_disabled`; an event past its 30 days, 404.',
    tag: 'Events',
    scope: 'webhooks:write',
    idempotency: 'keyed',
    get params() {
      return eventId();
    },
    get body() {
      return redeliverBodySchema();
    },
    get response() {
      return z.object({ event: eventSchema().extend({ deliveries: z.array(deliverySchema()) }) });
    },
    successStatus: 202,
    errors: ['not_found', 'webhook_endpoint_disabled'],
  }),
] as const;
