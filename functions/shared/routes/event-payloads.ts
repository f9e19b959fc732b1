import { timestampField } from '../fields';
import { lazy } from '../lazy';
import { MAX_INLINE_CHANGE_ITEM_BYTES } from '../types/events';
import { METERS } from '../types/meters';
import * as z from '../zod';
import { dynadataItemSchema } from './dynadata-schemas';
import { speechJobSchema } from './speech-job-schemas';
import { transcodeJobSchema } from './transcode-schemas';
import { transcriptionJobSchema } from './transcription-schemas';
import { workflowRunSchema } from './workflow-schemas';

/**
 * The body of every webhook the platform sends, one schema per event type: `{id, type, createdAt, data}` with
 * `data` the resource exactly as its GET route shows it (docs/events-and-webhooks.md). `GET /v1/events`
 * answers the same objects, and the OpenAPI document names each payload (`TranscodeDoneEvent`, …) and lists
 * them as the callbacks of `POST /v1/webhooks`, so a generated client has a type for every delivery.
 */
const envelope = <T extends string, D extends z.ZodType>(type: T, data: D, description: string) =>
  z
    .object({
      id: z.string().describe('Event identifier (`evt_…`), also the `webhook-id` header of its deliveries.'),
      type: z.literal(type),
      createdAt: timestampField(),
      data,
    })
    .describe(description);

/** `data` of the Dynadata change events (`domain/dynadata/change-events.ts`). */
const dynadataChangeSchema = /* @__PURE__ */ lazy(() =>
  z
    .object({
      type: z.string().describe('The item’s Dynadata type.'),
      _id: z.string(),
      _version: z.number().int().describe('The item’s version after the change (before it, for a delete).'),
      changedFields: z
        .array(z.string())
        .describe(
          'Top-level fields the change set, changed or removed (all of them, for a create or delete).',
        ),
      item: dynadataItemSchema()
        .nullable()
        .describe(
          `The item as GET shows it, when its JSON takes at most ${MAX_INLINE_CHANGE_ITEM_BYTES} bytes; ` +
            'null otherwise (read it by `_id`).',
        ),
      itemOmitted: z.literal(true).optional().describe('Set when `item` is null because the item is larger.'),
    })
    .describe('A committed change of one Dynadata item.'),
);

export const EVENT_PAYLOADS = /* @__PURE__ */ lazy(() => ({
  'message.sent': envelope('message.sent', dynadataItemSchema(), 'A message left `queued` for `sent`.'),
  'message.failed': envelope(
    'message.failed',
    dynadataItemSchema(),
    'A message failed: its delivery failed, or the sender reported it `failed` (`failureReason`).',
  ),
  'message.delivered': envelope(
    'message.delivered',
    dynadataItemSchema(),
    'The sender reported a message `delivered` (`deliveredAt`).',
  ),
  'message.read': envelope(
    'message.read',
    dynadataItemSchema(),
    'The sender reported a message `read` (`readAt`).',
  ),
  'message.received': envelope(
    'message.received',
    dynadataItemSchema(),
    'A contact sent a message: stored `inbound` with status `received`.',
  ),
  'transcode.done': envelope('transcode.done', transcodeJobSchema(), 'A transcode job is `done`.'),
  'transcode.failed': envelope('transcode.failed', transcodeJobSchema(), 'A transcode job `failed`.'),
  'transcode.canceled': envelope(
    'transcode.canceled',
    transcodeJobSchema(),
    'A transcode job was `canceled`.',
  ),
  'transcription.done': envelope(
    'transcription.done',
    transcriptionJobSchema(),
    'A transcription is `done`.',
  ),
  'transcription.failed': envelope(
    'transcription.failed',
    transcriptionJobSchema(),
    'A transcription job `failed`.',
  ),
  'speech_job.done': envelope('speech_job.done', speechJobSchema(), 'A speech job is `done`.'),
  'speech_job.failed': envelope('speech_job.failed', speechJobSchema(), 'A speech job `failed`.'),
  'workflow_run.finished': envelope(
    'workflow_run.finished',
    workflowRunSchema(),
    'A workflow run reached its final status (a minted token in it is redacted).',
  ),
  'usage.threshold_reached': envelope(
    'usage.threshold_reached',
    z.object({
      meter: z.enum(METERS).describe('The meter.'),
      threshold: z.number().int().describe('Percent of the monthly allowance passed: 80 or 100.'),
      month: z.string().describe('The UTC month, `YYYY-MM`.'),
      used: z.number().describe('What the month has used.'),
      limit: z.number().describe('The monthly allowance.'),
    }),
    'A meter passed 80 % or 100 % of its monthly allowance (once per meter, threshold and month).',
  ),
  'dynadata.item.created': envelope(
    'dynadata.item.created',
    dynadataChangeSchema(),
    'An item of a company type was created (custom types and `contacts`).',
  ),
  'dynadata.item.updated': envelope(
    'dynadata.item.updated',
    dynadataChangeSchema(),
    'An item of a company type was updated: `item` as after the change.',
  ),
  'dynadata.item.deleted': envelope(
    'dynadata.item.deleted',
    dynadataChangeSchema(),
    'An item of a company type was deleted: `item` as before the delete.',
  ),
  ping: envelope(
    'ping',
    z.object({ endpointId: z.string(), message: z.literal('ping') }),
    'A test delivery (`POST /v1/webhooks/{id}/test`), to that endpoint only.',
  ),
}));

/**
 * A delivery of the company's message channel (set by the operator, so no route of the document posts it): the
 * envelope of every webhook, asking the company's sender to send a message.
 */
export const messageSendPayload = /* @__PURE__ */ lazy(() =>
  envelope(
    'message.send',
    z.object({
      messageId: z.string(),
      contactId: z.string(),
      contact: z.record(z.string(), z.unknown()).nullable().describe('The contact (`_id` and its fields).'),
      message: z.object({
        type: z.string(),
        body: z
          .looseObject({
            file: z
              .object({
                bucket: z.string(),
                fullPath: z.string(),
                url: z.url().describe('A signed download URL of the file (GET), valid one hour.'),
                urlExpiresAt: timestampField().describe('The URL stops working at this time.'),
              })
              .optional()
              .describe('File messages: the stored file, with a download URL for the sender.'),
          })
          .describe('The message body as sent (`text`, or `file`, `caption`, `filename`).'),
      }),
      createdAt: timestampField(),
    }),
    'A message to send, posted to the company’s message channel (`channels set`), not to event endpoints.',
  ),
);
