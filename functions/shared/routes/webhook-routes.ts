import { MAX_LIST_PAGE } from '../domain/pages';
import { identifierField } from '../fields';
import { lazy } from '../lazy';
import { DEFAULT_DELIVERIES_PAGE, MAX_EVENTS_PAGE } from '../types/events';
import * as z from '../zod';
import {
  createdWebhookSchema,
  createWebhookBodySchema,
  endpointDeliverySchema,
  eventSchema,
  rotatedSecretSchema,
  rotateSecretBodySchema,
  updateWebhookBodySchema,
  webhookEndpointSchema,
} from './event-schemas';
import { route } from './route-definition';
import { deletedAnswer, nextCursorSchema, pageQuery } from './schemas';

/**
 * The routes of webhook endpoints (group `events`, with `event-routes.ts`), a section of the route table
 * (`ROUTES` spreads it, and checks each entry against `RouteDefinition`).
 */
const endpointId = /* @__PURE__ */ lazy(() => z.object({ id: identifierField('Endpoint identifier.') }));

export const WEBHOOK_ROUTES = [
  route({
    method: 'POST',
    path: '/v1/webhooks',
    group: 'events',
    operationId: 'createWebhookEndpoint',
    sdk: 'webhooks.create',
    answersEtag: 'endpoint',
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
  }),
  route({
    method: 'GET',
    path: '/v1/webhooks',
    group: 'events',
    operationId: 'listWebhookEndpoints',
    sdk: 'webhooks.list',
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
  }),
  route({
    method: 'GET',
    path: '/v1/webhooks/{id}',
    group: 'events',
    operationId: 'getWebhookEndpoint',
    sdk: 'webhooks.get',
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
  }),
  route({
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    group: 'events',
    operationId: 'deleteWebhookEndpoint',
    sdk: 'webhooks.delete',
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
      return deletedAnswer({ id: z.string().describe('The deleted endpoint.') });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    group: 'events',
    operationId: 'testWebhookEndpoint',
    sdk: 'webhooks.test',
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
  }),
  route({
    method: 'PATCH',
    path: '/v1/webhooks/{id}',
    group: 'events',
    operationId: 'updateWebhookEndpoint',
    sdk: 'webhooks.update',
    answersEtag: 'endpoint',
    ifMatch: true,
    summary: 'Change a webhook endpoint',
    description:
      'Replaces the members given (JSON merge: `description: null` removes it; members left out stay). A new ' +
      '`url` follows the rules of the creation (400 `validation_failed` at `/body/url`). `enabled: true` ' +
      're-enables a disabled endpoint with its failures cleared; `enabled: false` disables it. With `If-Match`, ' +
      'only while the endpoint is still the one read (412 `precondition_failed`).',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    get params() {
      return endpointId();
    },
    get body() {
      return updateWebhookBodySchema();
    },
    get response() {
      return z.object({ endpoint: webhookEndpointSchema() });
    },
    errors: ['not_found'],
  }),
  route({
    method: 'POST',
    path: '/v1/webhooks/{id}/rotate-secret',
    group: 'events',
    operationId: 'rotateWebhookSecret',
    sdk: 'webhooks.rotateSecret',
    answersEtag: 'endpoint',
    summary: "Rotate a webhook endpoint's signing secret",
    description:
      'Answers a new signing secret, once (an idempotent replay answers `secret: null`). The previous ' +
      'secret keeps signing beside it for `overlapSeconds` (default one day, at most seven): during the ' +
      'overlap every delivery carries two signatures in `webhook-signature`, one per secret, space-separated; ' +
      'after it only the new one. Rotating again drops the secret before the previous one.',
    tag: 'Webhooks',
    scope: 'webhooks:write',
    idempotency: 'keyed',
    shownOnce: ['secret'],
    get params() {
      return endpointId();
    },
    get body() {
      return rotateSecretBodySchema();
    },
    get response() {
      return rotatedSecretSchema();
    },
    errors: ['not_found'],
  }),
  route({
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    group: 'events',
    operationId: 'listWebhookDeliveries',
    sdk: 'webhooks.deliveries.list',
    summary: "List a webhook endpoint's deliveries, newest first",
    description:
      'The delivery log of one endpoint: one delivery per event sent to it (kept as long as the event, 30 ' +
      'days), newest event first, with its status, attempts, last answer and how long that answer took.',
    tag: 'Webhooks',
    scope: 'webhooks:read',
    get params() {
      return endpointId();
    },
    get query() {
      return z.object(pageQuery('Deliveries', MAX_EVENTS_PAGE, DEFAULT_DELIVERIES_PAGE));
    },
    get response() {
      return z.object({ deliveries: z.array(endpointDeliverySchema()), nextCursor: nextCursorSchema() });
    },
    errors: ['not_found'],
    inputNames: { id: 'endpointId' },
    agent: {
      tool: 'list_webhook_deliveries',
      title: "List a webhook endpoint's deliveries",
      description:
        'The delivery log of one webhook endpoint (`endpointId`), newest event first, as ' +
        'GET /v1/webhooks/{id}/deliveries: which events reached it, which failed and with what answer.',
      effect: 'read',
    },
  }),
] as const;
