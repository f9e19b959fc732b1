import { identifierField, timestampField, urlField } from '../fields';
import { lazy } from '../lazy';
import {
  DEFAULT_EVENTS_PAGE,
  DEFAULT_SECRET_OVERLAP_SECONDS,
  EVENT_TYPE_PATTERNS,
  EVENT_TYPES,
  MAX_DYNADATA_TYPE_FILTER,
  MAX_EVENTS_PAGE,
  MAX_SECRET_OVERLAP_SECONDS,
  SUBSCRIBABLE_EVENT_TYPES,
} from '../types/events';
import * as z from '../zod';
import { nextCursorSchema, pageQuery } from './schemas';

/** Request and response shapes of the webhook endpoint and event routes (they become the OpenAPI document). */

export const eventTypeSchema = /* @__PURE__ */ lazy(() => z.enum(EVENT_TYPES).describe('Event type.'));

/** A subscription's filter of the Dynadata change events by item type (webhook endpoints, workflow triggers). */
export const dynadataTypeFilterSchema = /* @__PURE__ */ lazy(() =>
  z
    .array(identifierField('Dynadata type name.'))
    .min(1)
    .max(MAX_DYNADATA_TYPE_FILTER)
    .describe(
      `Only \`dynadata.item.*\` events about items of these types (at most ${MAX_DYNADATA_TYPE_FILTER}); other ` +
        'event types are not narrowed. Absent: items of every type.',
    ),
);

export const createWebhookBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      url: urlField(
        'Where events are POSTed: `https` only; no credentials in the URL; private, link-local, loopback and ' +
          'reserved addresses are refused.',
      ),
      events: z
        .array(z.enum([...SUBSCRIBABLE_EVENT_TYPES, ...EVENT_TYPE_PATTERNS, '*']))
        .min(1)
        .max(SUBSCRIBABLE_EVENT_TYPES.length + EVENT_TYPE_PATTERNS.length + 1)
        .describe(
          'Event types to receive: types, families (`dynadata.item.*`, which also takes the family’s types ' +
            'added later) or `["*"]` for all.',
        ),
      dynadataTypes: dynadataTypeFilterSchema().optional(),
      description: z.string().max(256).optional().describe('Free text for your own reference.'),
    })
    .strict()
    .describe('A webhook endpoint to create.'),
);

/**
 * The members `PATCH /v1/webhooks/{id}` replaces (JSON merge): the creation's own `url` and `events`, a
 * `description` that `null` removes, and `enabled`.
 */
export const updateWebhookBodySchema = /* @__PURE__ */ lazy(() => {
  const { url, events, dynadataTypes } = createWebhookBodySchema().shape;
  return z
    .object({
      url: url.optional(),
      events: events.optional(),
      dynadataTypes: dynadataTypes.unwrap().nullable().optional().describe('`null` removes the filter.'),
      description: z.string().max(256).nullable().optional().describe('Free text; `null` removes it.'),
      enabled: z
        .boolean()
        .optional()
        .describe(
          '`false` stops deliveries (`disabled`); `true` re-enables a disabled endpoint and clears its failures.',
        ),
    })
    .strict()
    .describe('The members of the endpoint to replace; members left out stay as they are.');
});

export const rotateSecretBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      overlapSeconds: z
        .number()
        .int()
        .min(0)
        .max(MAX_SECRET_OVERLAP_SECONDS)
        .optional()
        .describe(
          `How long the previous secret keeps signing beside the new one, 0 to ${MAX_SECRET_OVERLAP_SECONDS} ` +
            `seconds (default ${DEFAULT_SECRET_OVERLAP_SECONDS}, one day).`,
        ),
    })
    .strict()
    .describe('The rotation of an endpoint’s signing secret.'),
);

export const webhookEndpointSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Endpoint identifier.'),
      url: z.string(),
      events: z.array(z.string()).describe('Subscribed event types (`*`: all).'),
      dynadataTypes: z
        .array(z.string())
        .nullable()
        .describe('The filter of `dynadata.item.*` events by item type; null: every type.'),
      description: z.string().nullable(),
      status: z.enum(['enabled', 'disabled']),
      disabledReason: z
        .string()
        .nullable()
        .describe('Why deliveries stopped: set when failures lasted past the disable period.'),
      disabledAt: timestampField().nullable(),
      failingSince: timestampField().nullable().describe('First failed attempt since the last success.'),
      createdAt: timestampField(),
      updatedAt: timestampField(),
    })
    .describe('A webhook endpoint.'),
);

export const createdWebhookSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    endpoint: webhookEndpointSchema(),
    secret: z
      .string()
      .nullable()
      .describe(
        'Signing secret `whsec_<base64>` (Standard Webhooks). Shown only in the first answer: store it. ' +
          '`null` in an idempotent replay (`Idempotent-Replayed: true`): the secret is never stored with the key.',
      ),
  }),
);

export const rotatedSecretSchema = /* @__PURE__ */ lazy(() =>
  createdWebhookSchema().extend({
    previousSecretExpiresAt: timestampField()
      .nullable()
      .describe('Until when the previous secret signs too (a second signature); null with no overlap.'),
  }),
);

export const eventSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      id: z.string().describe('Event identifier, also the `webhook-id` header of its deliveries.'),
      type: eventTypeSchema(),
      createdAt: timestampField(),
      data: z.unknown().describe('The resource as its GET route shows it when the event happened.'),
    })
    .describe('An event, exactly as delivered to webhook endpoints.'),
);

export const deliverySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      endpointId: z.string(),
      status: z.enum(['pending', 'delivered', 'failed']),
      attempts: z.number().int(),
      lastStatus: z
        .string()
        .nullable()
        .describe(
          'The last answer: an HTTP status (`"200"`, `"503"`), or `network_error`, `refused_address`, ' +
            '`endpoint_disabled`, `endpoint_deleted`, `event_expired`.',
        ),
      lastAttemptAt: timestampField().nullable(),
      nextAttemptAt: timestampField().nullable(),
    })
    .describe('The delivery of an event to one endpoint.'),
);

export const endpointDeliverySchema = /* @__PURE__ */ lazy(() =>
  deliverySchema()
    .omit({ endpointId: true })
    .extend({
      eventId: z.string().describe('The event, also the `webhook-id` of every attempt.'),
      eventType: eventTypeSchema().nullable(),
      lastDurationMs: z
        .number()
        .int()
        .nullable()
        .describe('How long the last answer took, in milliseconds; null when no request was sent.'),
    })
    .describe('The delivery of one event to the endpoint.'),
);

export const redeliverBodySchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      endpointId: identifierField(
        'Send to this endpoint only; omitted: to every enabled endpoint the event was sent to.',
      ).optional(),
    })
    .strict()
    .describe('Where to send the event again.'),
);

export const listEventsQuerySchema = /* @__PURE__ */ lazy(() =>
  z.object({
    type: eventTypeSchema().optional().describe('Only events of this type.'),
    ...pageQuery('Events', MAX_EVENTS_PAGE, DEFAULT_EVENTS_PAGE),
    after: z
      .string()
      .max(30)
      .regex(/^evt_[0-9a-z]{26}$/)
      .optional()
      .describe('Only events older than this event id: the same value as `cursor`.'),
  }),
);

export const eventPageSchema = /* @__PURE__ */ lazy(() =>
  z.object({
    events: z.array(eventSchema()).describe('Newest first.'),
    nextCursor: nextCursorSchema(),
    next: z
      .string()
      .nullable()
      .meta({ deprecated: true })
      .describe('Deprecated: `nextCursor` replaces it (always the same value).'),
  }),
);
