import { MAX_LIST_PAGE } from '../domain/pages';
import { identifierField } from '../fields';
import { lazy } from '../lazy';
import * as z from '../zod';
import {
  createdWebhookSchema,
  createWebhookBodySchema,
  deliverySchema,
  eventPageSchema,
  eventSchema,
  listEventsQuerySchema,
  webhookEndpointSchema,
} from './event-schemas';
import { nextCursorSchema, pageQuery } from './schemas';

/**
 * The routes of webhook endpoints and events (group `events`), a section of the route table (`ROUTES`
 * spreads it, and checks each entry against `RouteDefinition`).
 */
const endpointId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Endpoint identifier.') }));
const eventId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Event identifier.') }));

export const EVENT_ROUTES = [
  {
    method: 'POST',
    path: '/v1/webhooks',
    group: 'events',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description:
      'Events of the subscribed types raised from its creation on are POSTed to the URL, signed with ' +
      'Standard Webhooks headers. The ' +
      'signing secret is answered once: an idempotent replay of the creation (same `Idempotency-Key`, ' +
      '`Idempotent-Replayed: true`) answers the endpoint as created with `secret: null`, whether it still ' +
      'exists or not, as the secret is never kept with the key. At most the plan’s `webhookEndpoints` ' +
      'endpoints per company (403 `webhook_endpoint_limit_reached`); a refused URL answers 400 ' +
      '`validation_failed` at `/body/url`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    get body() {
      return createWebhookBodySchema();
    },
    get response() {
      return createdWebhookSchema();
    },
    successStatus: 201,
    idempotency: 'keyed',
    shownOnce: ['secret'],
    errors: ['webhook_endpoint_limit_reached'],
  },
  {
    method: 'GET',
    path: '/v1/webhooks',
    group: 'events',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints',
    description:
      'Every endpoint of the company with its subscribed event types and status (`enabled`, or `disabled` ' +
      'with `disabledReason`). Signing secrets are shown only once, when an endpoint is created.',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    get query() {
      return z.object(pageQuery('Endpoints', MAX_LIST_PAGE, MAX_LIST_PAGE));
    },
    get response() {
      return z.object({ endpoints: z.array(webhookEndpointSchema()), nextCursor: nextCursorSchema() });
    },
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}',
    group: 'events',
    operationId: 'getWebhookEndpoint',
    etag: true,
    summary: 'Fetch a webhook endpoint',
    description:
      'One endpoint with its subscribed event types and status; a disabled endpoint shows why in ' +
      "`disabledReason`. Another company's endpoint answers 404 `not_found`.",
    tag: 'Webhooks',
    scope: 'webhooks:read',
    get params() {
      return endpointId();
    },
    get response() {
      return z.object({ endpoint: webhookEndpointSchema() });
    },
    errors: ['not_found'],
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    group: 'events',
    operationId: 'deleteWebhookEndpoint',
    ifMatch: true,
    summary: 'Delete a webhook endpoint',
    description:
      'Stops deliveries to the endpoint: deliveries still queued for it end as failed ' +
      '(`endpoint_deleted`). Its events stay readable through GET /v1/events.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    get params() {
      return endpointId();
    },
    get response() {
      return z.object({ deleted: z.literal(true) });
    },
    errors: ['not_found'],
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    group: 'events',
    operationId: 'testWebhookEndpoint',
    summary: 'Send a ping event to one endpoint',
    description:
      'Creates a `ping` event delivered to this endpoint only, like any event (signed, retried); follow it ' +
      'with `GET /v1/events/{id}`. A disabled endpoint answers 409 `webhook_endpoint_disabled`.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    idempotency: 'keyed',
    get params() {
      return endpointId();
    },
    get response() {
      return z.object({ event: eventSchema() });
    },
    successStatus: 202,
    errors: ['not_found', 'webhook_endpoint_disabled'],
  },
  {
    method: 'GET',
    path: '/v1/events',
    group: 'events',
    operationId: 'listEvents',
    summary: 'List events, newest first',
    description:
      'Events of the last 30 days, newest first, `limit` per page; pass `next` as `after` for older ones. ' +
      'A consumer that was down catches up here.',
    tag: 'Events',
    scope: 'webhooks:read',
    get query() {
      return listEventsQuerySchema();
    },
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
  },
  {
    method: 'GET',
    path: '/v1/events/{id}',
    group: 'events',
    operationId: 'getEvent',
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
  },
] as const;
