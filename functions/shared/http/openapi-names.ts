import { listFilterSchema } from '../domain/dynadata/list-request';
import { conditionSchema } from '../domain/workflows/conditions';
import * as dd from '../routes/dynadata-schemas';
import { EVENT_PAYLOADS } from '../routes/event-payloads';
import * as ev from '../routes/event-schemas';
import * as shared from '../routes/schemas';
import * as sj from '../routes/speech-job-schemas';
import * as st from '../routes/storage-schemas';
import * as tc from '../routes/transcode-schemas';
import * as tr from '../routes/transcription-schemas';
import * as wf from '../routes/workflow-schemas';
import * as z from '../zod';

/**
 * The resources the OpenAPI document names (`#/components/schemas/<name>`), so a client generated from it has
 * one type to import for each: a job, a run, an event, an item. The route schemas stay plain zod; the names are
 * given here, for the time the document is built only (`withDocumentNames`), because the MCP server converts
 * the same schemas for its tools and an MCP client expects each tool's schema inline.
 */
const documentNames = (): ReadonlyArray<readonly [z.ZodType, string]> => [
  [shared.companySchema(), 'Company'],
  [shared.subscriptionSchema(), 'Subscription'],
  [shared.planSchema(), 'Plan'],
  [shared.planLimitsSchema(), 'PlanLimits'],
  [shared.usageSnapshotSchema(), 'Usage'],
  [dd.dynadataTypeSummarySchema(), 'DynadataType'],
  [dd.dynadataItemSchema(), 'DynadataItem'],
  [listFilterSchema(), 'DynadataFilter'],
  [st.storedObjectResponseSchema(), 'StoredObject'],
  [st.uploadUrlResponseSchema(), 'UploadReservation'],
  [tc.transcodeJobSchema(), 'TranscodeJob'],
  [tr.transcriptionJobSchema(), 'TranscriptionJob'],
  [sj.speechJobSchema(), 'SpeechJob'],
  [wf.workflowSummarySchema(), 'WorkflowSummary'],
  [wf.workflowSchema(), 'Workflow'],
  [conditionSchema(), 'WorkflowCondition'],
  [wf.workflowRunSchema(), 'WorkflowRun'],
  [ev.webhookEndpointSchema(), 'WebhookEndpoint'],
  [ev.eventSchema(), 'Event'],
  [ev.deliverySchema(), 'EventDelivery'],
];

/** Runs `build` (synchronous) with every named schema carrying its `id` in zod's registry, then removes them. */
export const withDocumentNames = <T>(build: () => T): T => {
  const names = documentNames();
  const previous = names.map(([schema]) => [schema, z.globalRegistry.get(schema)] as const);
  for (const [schema, id] of names) z.globalRegistry.add(schema, { ...z.globalRegistry.get(schema), id });
  try {
    return build();
  } finally {
    for (const [schema, meta] of previous) {
      z.globalRegistry.remove(schema);
      if (meta !== undefined) z.globalRegistry.add(schema, meta);
    }
  }
};

/** `transcode.done` → `TranscodeDoneEvent`. */
const payloadName = (type: string): string =>
  `${type
    .split(/[._]/)
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('')}Event`;

/**
 * The webhook payloads: one named schema per event type, `Event` as their union (discriminated by `type`, so
 * `GET /v1/events` is typed too), and the callback every endpoint created with `POST /v1/webhooks` receives.
 */
export const webhookComponents = (toSchema: (schema: z.ZodType) => Record<string, unknown>) => {
  const payloads = Object.entries(EVENT_PAYLOADS()).map(
    ([type, schema]) => [type, payloadName(type), schema] as const,
  );
  const schemas: Record<string, Record<string, unknown>> = Object.fromEntries(
    payloads.map(([, name, schema]) => [name, toSchema(schema)]),
  );
  schemas.Event = {
    description: 'An event, exactly as delivered to webhook endpoints: one of the payloads below, by `type`.',
    oneOf: payloads.map(([, name]) => ({ $ref: `#/components/schemas/${name}` })),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(payloads.map(([type, name]) => [type, `#/components/schemas/${name}`])),
    },
  };
  const delivery = {
    post: {
      summary: 'An event delivered to the endpoint',
      description:
        'Signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). A 2xx answer ' +
        'ends the delivery; 5xx, 408, 429, timeouts and network errors are retried with backoff.',
      parameters: ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => ({
        name,
        in: 'header',
        required: true,
        schema: { type: 'string' },
      })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
      },
      responses: {
        '200': { description: 'Received; any 2xx ends the delivery.' },
        '4XX': {
          description: 'Refused: the delivery ends as `failed`, except 408 and 429, which are retried.',
        },
      },
    },
  };
  return { schemas, callbacks: { event: { '{$request.body#/url}': delivery } } };
};
