import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicUlid } from '../ids';
import {
  EVENT_ENTITY,
  EVENT_RETENTION_DAYS,
  EVENT_TYPES,
  type EventType,
  type WorkflowRunFinishedData,
} from '../types/events';
import * as zm from '../zod-mini';
import { defineEntity, putItem, type TransactItem } from './entity';
import { partitions, sortKeys } from './keys';
import { packJsonText, readJsonText } from './packed-json';

export { EVENT_ENTITY };

import { ddb, tableName } from './client';
import { transactUnlessFailed } from './transactions';

/**
 * Events (the outbox): one item per event in the company's partition `CO#<companyId>#EVENT`, sort key
 * `EV#<eventId>`. The id is `evt_<ULID>`, so ids sort by creation time and the partition lists newest first
 * when read backwards. The item is written in the same transaction as the state change that causes it
 * (`eventItem`), so an event exists if and only if its change happened, once. Items expire after
 * EVENT_RETENTION_DAYS (TTL). The table's stream carries each new event to the dispatcher.
 */

export const eventPartition = partitions.events;
export const eventKey = (companyId: string, eventId: string) => ({
  pk: eventPartition(companyId),
  sk: sortKeys.event(eventId),
});

/**
 * The event item: `data` is JSON text, packed (binary) when long (see `eventItem`); items written before
 * packing hold the text, and older ones a map.
 */
const Event = /* @__PURE__ */ defineEntity({
  name: EVENT_ENTITY,
  key: eventKey,
  get schema() {
    return zm.object({
      id: zm.string(),
      companyId: zm.string(),
      // A type none of `EVENT_TYPES` makes the item corrupt: decoding refuses it, with its key.
      type: zm.enum(EVENT_TYPES),
      createdAt: zm.string(),
      resourceId: zm.string(),
      data: zm.optional(zm.unknown()),
      endpointId: zm.optional(zm.string()),
      hop: zm.optional(zm.number()),
    });
  },
});

/** The once-only marker of an event (`putEventOnce`): its key is all it holds. */
const EventMarker = /* @__PURE__ */ defineEntity({
  name: 'event_marker',
  key: (companyId: string, marker: string) => ({
    pk: eventPartition(companyId),
    sk: sortKeys.eventMarker(marker),
  }),
  get schema() {
    return zm.object({});
  },
});

export const newEventId = (now: Date): string => `evt_${monotonicUlid(now.getTime())}`;

export const eventExpiry = (now: Date): number =>
  Math.floor(now.getTime() / 1000) + EVENT_RETENTION_DAYS * 86_400;

export interface EventRecord {
  id: string;
  companyId: string;
  type: EventType;
  createdAt: string;
  /** The resource the event is about (job, message, run, meter): deliveries of one resource keep order. */
  resourceId: string;
  data: unknown;
  /** Set on `ping` events: the only endpoint the event is delivered to. */
  endpointId?: string;
  /**
   * How many workflow runs deep the change that raised the event is (`workflow-hops.ts`; absent: 0). A run
   * the event triggers starts at this hop, so a workflow that re-triggers itself ends at the hop limit.
   */
  hop?: number;
}

export interface EventInput {
  companyId: string;
  type: EventType;
  resourceId: string;
  data: unknown;
  now: Date;
  /** Only for `ping`: the one endpoint to deliver to. */
  endpointId?: string;
  /** The workflow hop of the change that raises the event (set only when above 0). */
  hop?: number;
  /** A chosen id (tests, benchmarks); by default a new `evt_<ULID>` of `now`. */
  id?: string;
}

/** The event as stored (without keys). */
export const eventRecord = (input: EventInput): EventRecord => ({
  id: input.id ?? newEventId(input.now),
  companyId: input.companyId,
  type: input.type,
  createdAt: input.now.toISOString(),
  resourceId: input.resourceId,
  data: input.data,
  ...(input.endpointId ? { endpointId: input.endpointId } : {}),
  ...(input.hop ? { hop: input.hop } : {}),
});

/**
 * The transaction item that writes one event: add it to the transaction of the state change that causes
 * the event (`TransactItems: [..., eventItem({...})]`).
 */
export const eventItem = (input: EventInput) => {
  const record = eventRecord(input);
  return {
    Put: {
      TableName: tableName(),
      Item: Event.item(
        eventKey(input.companyId, record.id),
        // JSON text, as workflow results are: a resource may nest deeper than a DynamoDB map allows, or
        // hold empty keys, and the event must keep it exactly as its GET route shows it. Packed when long
        // (`packed-json.ts`): a finished run's or a done job's event then stays within one or a few KB.
        { ...record, data: packJsonText(record.data ?? null) },
        { ttl: eventExpiry(input.now) },
      ),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  } satisfies TransactItem;
};

/**
 * The transaction item of `workflow_run.finished`: add it to the transaction that moves the run into its
 * final status, with the run as its GET route shows it after that move.
 */
export const workflowRunFinishedEventItem = (input: {
  companyId: string;
  run: WorkflowRunFinishedData;
  now: Date;
}) =>
  eventItem({
    companyId: input.companyId,
    type: 'workflow_run.finished',
    resourceId: input.run.runId,
    data: input.run,
    now: input.now,
  });

/** Writes an event on its own (an event that no other state change causes: `ping`). */
export const putEvent = async (input: EventInput): Promise<EventRecord> => {
  const record = eventRecord(input);
  await ddb.send(new PutCommand(eventItem({ ...input, id: record.id }).Put));
  return record;
};

/**
 * Writes an event once per `marker` (a name unique to what the event reports, for example a meter's
 * threshold in a month), in one transaction with the marker. Returns false when the marker exists.
 */
export const putEventOnce = (marker: string, input: EventInput): Promise<boolean> =>
  transactUnlessFailed(
    [
      putItem(
        EventMarker,
        EventMarker.key(input.companyId, marker),
        {},
        {
          extra: { ttl: eventExpiry(input.now) + 31 * 86_400 },
          condition: { expression: 'attribute_not_exists(pk)' },
        },
      ),
      eventItem(input),
    ],
    0,
  );

export const toEventRecord = (item: Record<string, unknown>): EventRecord => {
  const { data, endpointId, hop, ...event } = Event.decode(item);
  return {
    ...event,
    data: typeof data === 'string' || data instanceof Uint8Array ? readJsonText(data) : (data ?? null),
    ...(endpointId === undefined ? {} : { endpointId }),
    ...(hop ? { hop } : {}),
  };
};

const isLive = (item: Record<string, unknown>, nowSeconds: number) =>
  typeof item.ttl !== 'number' || item.ttl > nowSeconds;

export const getEvent = async (companyId: string, eventId: string, now: Date) => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: eventKey(companyId, eventId), ConsistentRead: true }),
  );
  return Item && isLive(Item, now.getTime() / 1000) ? toEventRecord(Item) : undefined;
};

/**
 * A page of events, newest first, strictly older than the event `after` when given, of one type when given
 * (the type is a filter: pages are read until `limit` events or the partition's end). Returns the events
 * and, when more may follow, the id to pass as `after`.
 */
export const listEvents = async (
  companyId: string,
  options: { type?: string; after?: string; limit: number; now: Date },
): Promise<{ events: EventRecord[]; next: string | null }> => {
  const events: EventRecord[] = [];
  const nowSeconds = Math.floor(options.now.getTime() / 1000);
  let startKey: Record<string, unknown> | undefined;
  const upper = options.after ? sortKeys.event(options.after) : sortKeys.afterEvents;
  for (;;) {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        FilterExpression: ['#ttl > :now', ...(options.type ? ['#type = :type'] : [])].join(' AND '),
        ExpressionAttributeNames: { '#ttl': 'ttl', ...(options.type ? { '#type': 'type' } : {}) },
        ExpressionAttributeValues: {
          ':pk': eventPartition(companyId),
          ':lo': sortKeys.event(''),
          ':hi': upper,
          ':now': nowSeconds,
          ...(options.type ? { ':type': options.type } : {}),
        },
        ScanIndexForward: false,
        Limit: options.limit + 1 - events.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) if (String(item.sk) !== upper) events.push(toEventRecord(item));
    startKey = page.LastEvaluatedKey;
    if (events.length > options.limit || !startKey) break;
  }
  const more = events.length > options.limit;
  const shown = events.slice(0, options.limit);
  return { events: shown, next: more ? (shown.at(-1)?.id ?? null) : null };
};
