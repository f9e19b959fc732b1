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
  'dynadata.item.created',
  'dynadata.item.updated',
  'dynadata.item.deleted',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** What an endpoint may subscribe to: every type but `ping`, which is always sent to the endpoint tested. */
export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((t) => t !== 'ping');

/**
 * The family patterns an endpoint may subscribe to besides single types: `<family>.*` for every family of two
 * types or more (`dynadata.item.*`, `transcode.*`, …), which also covers the family's types added later.
 */
export const EVENT_TYPE_PATTERNS = /* @__PURE__ */ (() => {
  const families = new Map<string, number>();
  for (const type of SUBSCRIBABLE_EVENT_TYPES) {
    const family = type.slice(0, type.lastIndexOf('.'));
    if (family) families.set(family, (families.get(family) ?? 0) + 1);
  }
  return [...families].filter(([, n]) => n > 1).map(([family]) => `${family}.*`);
})();

/** True when a subscription (`*`, a family pattern or types) takes events of `type`. */
export const subscriptionTakes = (subscribed: readonly string[], type: string): boolean =>
  subscribed.includes('*') ||
  subscribed.includes(type) ||
  subscribed.includes(`${type.slice(0, type.lastIndexOf('.'))}.*`);

/** The Dynadata change events (`dynadata.item.*`): what a subscription's `dynadataTypes` filter narrows. */
export const DYNADATA_CHANGE_EVENT_TYPES = [
  'dynadata.item.created',
  'dynadata.item.updated',
  'dynadata.item.deleted',
] as const satisfies readonly EventType[];
export type DynadataChangeEventType = (typeof DYNADATA_CHANGE_EVENT_TYPES)[number];

/**
 * True when a subscription's `dynadataTypes` filter (absent: every type) takes the event: it narrows only the
 * `dynadata.item.*` events, to those about items of the listed types.
 */
export const dynadataTypeFilterTakes = (
  dynadataTypes: readonly string[] | undefined,
  event: { type: string; data: unknown },
): boolean => {
  if (dynadataTypes === undefined || !event.type.startsWith('dynadata.item.')) return true;
  const itemType = (event.data as { type?: unknown } | null)?.type;
  return typeof itemType === 'string' && dynadataTypes.includes(itemType);
};

/** At most this many type names in a subscription's `dynadataTypes` filter. */
export const MAX_DYNADATA_TYPE_FILTER = 20;

/** A change event inlines the item when its JSON takes at most this many bytes (else `item: null`). */
export const MAX_INLINE_CHANGE_ITEM_BYTES = 8192;

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
