/**
 * The event types a webhook endpoint can subscribe to (`*` subscribes to all). `ping` is sent by
 * `POST /v1/webhooks/{id}/test` to that endpoint only.
 */
export const EVENT_TYPES = [
  'message.sent',
  'message.failed',
  'message.delivered',
  'message.read',
  'message.received',
  'transcode.done',
  'transcode.failed',
  'transcode.canceled',
  'transcription.done',
  'transcription.failed',
  'speech_job.done',
  'speech_job.failed',
  'workflow_run.finished',
  'usage.threshold_reached',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What an endpoint may subscribe to: every type but `ping`, which is always sent to the endpoint tested. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'ping');

/** Events are kept (and listed by `GET /v1/events`) for this many days. */
export const EVENT_RETENTION_DAYS = 30;

/** The fractions of a monthly allowance that raise `usage.threshold_reached`, in percent. */
export const USAGE_THRESHOLDS = [80, 100] as const;

/** `GET /v1/events` page sizes. */
export const MAX_EVENTS_PAGE = 100;
export const DEFAULT_EVENTS_PAGE = 20;

/** An endpoint's delivery log (`GET /v1/webhooks/{id}/deliveries`): 20 a page by default, at most 100. */
export const DEFAULT_DELIVERIES_PAGE = 20;

/** How long a rotated-out signing secret keeps signing beside the new one, by default and at most (seconds). */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 24 * 3600;
export const MAX_SECRET_OVERLAP_SECONDS = 7 * 24 * 3600;

/** The `entity` of event items: the table stream's records of new events are filtered on it. */
export const EVENT_ENTITY = 'event';

/**
 * `data` of `workflow_run.finished`: the run as `GET /v1/workflows/{id}/runs/{runId}` shows it, which carries
 * at least its final `status` and `ok` (true when every step succeeded).
 */
export type WorkflowRunFinishedData = { runId: string; status: string; ok: boolean } & Record<
  string,
  unknown
>;
